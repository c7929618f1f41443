#!/usr/bin/env python3
"""Writes to standard output a binary trace that is nothing but N empty strings (string chunks
1..N with no text), for the string table's bound: each chunk is a 12-byte header (tag 1, length 4,
CRC-32 of the payload) and its 4-byte id. Stops quietly when the reader goes away."""
import struct
import sys
import zlib

count = int(sys.argv[1])
out = sys.stdout.buffer
try:
    out.write(bytes([0x89, 0x54, 0x44, 0x54, 0x52, 0x0D, 0x0A, 0x1A]) + struct.pack("<HHI", 2, 0, 0))
    batch = []
    for i in range(1, count + 1):
        payload = struct.pack("<I", i)
        batch.append(struct.pack("<B3xII", 1, 4, zlib.crc32(payload)) + payload)
        if len(batch) == 65536:
            out.write(b"".join(batch))
            batch = []
    out.write(b"".join(batch))
    out.flush()
except BrokenPipeError:
    pass
