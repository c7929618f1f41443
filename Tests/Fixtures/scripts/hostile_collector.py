#!/usr/bin/env python3
"""A collector that lies, on 127.0.0.1: each POST is read whole, logged to LOG ({"post": N}), then
answered as MODE says. Prints the port it listens on, then serves until it is stopped (each
connection on a thread of its own, none kept past 120 s).

Usage: hostile_collector.py MODE LOG

Modes: huge-length (Content-Length 2^63-1), negative-length, garbage-length, two-lengths,
huge-chunk (a chunk size of 20 hex digits), drip (the answer a byte a second), silent (no
answer, the connection kept open), gigabyte (200 with a 1 GB body, sent as fast as it is
read), redirect (307 to itself), partial (200 with a partial success rejecting 7 spans),
not-http, close (the connection closed without a word)."""
import json
import socket
import sys
import threading
import time

mode, log = sys.argv[1], sys.argv[2]
posts = 0
lock = threading.Lock()


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        body += chunk
    return True


def serve(conn):
    global posts
    conn.settimeout(120)
    try:
        if not read_request(conn):
            return
        with lock:
            posts += 1
            with open(log, "a") as f:
                f.write(json.dumps({"post": posts}) + "\n")
        ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if mode == "huge-length":
            conn.sendall(ok + b"Content-Length: 9223372036854775807\r\n\r\n{}")
        elif mode == "negative-length":
            conn.sendall(ok + b"Content-Length: -5\r\n\r\n{}")
        elif mode == "garbage-length":
            conn.sendall(ok + b"Content-Length: 12abc\r\n\r\n{}")
        elif mode == "two-lengths":
            conn.sendall(ok + b"Content-Length: 2\r\nContent-Length: 4\r\n\r\n{}")
        elif mode == "huge-chunk":
            conn.sendall(ok + b"Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n{}")
        elif mode == "drip":
            for byte in ok + b"Content-Length: 2\r\n\r\n{}":
                conn.sendall(bytes([byte]))
                time.sleep(1)
        elif mode == "silent":
            time.sleep(120)
        elif mode == "gigabyte":
            conn.sendall(ok + b"Content-Length: 1000000000\r\n\r\n")
            block = b" " * 65536
            for _ in range(1_000_000_000 // len(block)):
                conn.sendall(block)
        elif mode == "redirect":
            conn.sendall(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /v1/traces\r\nContent-Length: 0\r\n\r\n")
        elif mode == "partial":
            body = json.dumps({"partialSuccess": {"rejectedSpans": "7", "errorMessage": "spans too old\x1b[2J"}}).encode()
            conn.sendall(ok + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        elif mode == "not-http":
            conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
        elif mode == "close":
            pass
    except OSError:
        pass
    finally:
        conn.close()


server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(16)
print(server.getsockname()[1], flush=True)
while True:
    conn, _ = server.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
