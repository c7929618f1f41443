#!/usr/bin/env python3
"""Checks text meant for a terminal, read from the file named by the first argument, with
Python's own Unicode database (an oracle apart from trace-view's): no raw escape or control
character (but newlines), no bidirectional control, and, when a width is given, no line wider
than it in display columns (East Asian Wide and Fullwidth two columns, combining marks and
format characters none). With --ascii, no byte outside ASCII. Prints one JSON object:
{"lines": N, "widest": W, "problems": ["line 3: ...", ...]}."""
import json
import sys
import unicodedata

BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def width(line):
    total = 0
    chars = list(line)
    for i, c in enumerate(chars):
        o = ord(c)
        cat = unicodedata.category(c)
        if cat in ("Mn", "Me", "Cf") or o == 0xFE0F:
            # A variation selector 16 makes the emoji before it wide.
            if o == 0xFE0F and i > 0 and unicodedata.east_asian_width(chars[i - 1]) not in "WF":
                total += 1
            continue
        total += 2 if unicodedata.east_asian_width(c) in "WF" else 1
    return total


def main():
    path = sys.argv[1]
    limit = None
    ascii_only = "--ascii" in sys.argv
    for a in sys.argv[2:]:
        if a.startswith("--width="):
            limit = int(a.split("=", 1)[1])
    data = open(path, "rb").read()
    problems = []
    if ascii_only:
        for i, b in enumerate(data):
            if b >= 0x80:
                problems.append(f"byte {i}: 0x{b:02x} is not ASCII")
                break
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    widest = 0
    for n, line in enumerate(lines, 1):
        for c in line:
            o = ord(c)
            if o < 0x20 or 0x7F <= o <= 0x9F:
                problems.append(f"line {n}: raw control U+{o:04X}")
                break
            if o in BIDI:
                problems.append(f"line {n}: bidi control U+{o:04X}")
                break
        w = width(line)
        widest = max(widest, w)
        if limit is not None and w > limit:
            problems.append(f"line {n}: {w} columns: {line!r}")
    print(json.dumps({"lines": len(lines), "widest": widest, "problems": problems[:20]}))


main()
