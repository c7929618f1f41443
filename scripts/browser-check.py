#!/usr/bin/env python3
"""Opens a file in headless Chromium and prints as one JSON object what the browser saw: the
console errors and uncaught exceptions (`errors`), every network request the page made other than
for its own file (`requests`), the value of an optional JavaScript expression evaluated once the
page has loaded (`value`, JSON), and, with a screenshot path, the screenshot's size and how much of
it differs from its corner pixel (`screenshot`: width, height, distinct colours sampled, the
corner's RGB, the fraction of pixels unlike the corner's).

Usage: browser-check.py FILE [--eval JS] [--screenshot PNG] [--width W] [--height H] [--seconds S]
                        [--dark] [--fragment F]

--fragment opens FILE#F (the fragment is not a request of its own).

Chromium is driven over its DevTools protocol on a pipe (--remote-debugging-pipe) and the PNG is
decoded with zlib, so nothing beyond the Python standard library is needed. Exit status: 0 with
the JSON on stdout; 2 when the page did not load within S seconds (default 60); 3 without
Chromium."""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import argparse
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools_pipe import Browser  # noqa: E402


def png_stats(data):
    """Width, height, distinct colours (sampled) and the fraction of pixels unlike the corner's."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = header[0], header[1], header[2], header[3]
    assert depth == 8 and colour in (2, 6), f"unexpected PNG depth {depth} colour type {colour}"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(bytes(line))
        previous = line
    background = rows[0][:3]
    unlike = 0
    colours = set()
    for y in range(height):
        row = rows[y]
        for x in range(width):
            pixel = row[x * channels:x * channels + 3]
            if pixel != background:
                unlike += 1
            if (x + y) % 7 == 0:
                colours.add(pixel)
    return {"width": width, "height": height, "colours": len(colours), "corner": list(background),
            "unlike_corner": unlike / float(width * height)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--eval", default=None)
    parser.add_argument("--screenshot", default=None)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--dark", action="store_true", help="emulate prefers-color-scheme: dark")
    parser.add_argument("--fragment", default=None, help="open FILE#FRAGMENT")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        print("browser-check: no chromium", file=sys.stderr)
        return 3
    url = "file://" + os.path.abspath(args.file)
    profile = tempfile.mkdtemp(prefix="browser-check-")
    browser = Browser(chromium, profile, args.width, args.height)
    out = {"errors": [], "requests": []}
    try:
        page = next(t for t in browser.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        session = browser.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(f"{domain}.enable", {}, session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False}, session)
        if args.dark:
            browser.call("Emulation.setEmulatedMedia",
                         {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}, session)
        browser.call("Page.navigate", {"url": url + ("#" + args.fragment if args.fragment else "")}, session)
        try:
            browser.wait_for("Page.loadEventFired", args.seconds)
        except TimeoutError:
            print(json.dumps({"loaded": False}))
            return 2
        out["loaded"] = True
        if args.eval:
            result = browser.call("Runtime.evaluate", {"expression": args.eval, "returnByValue": True,
                                                       "awaitPromise": True}, session, timeout=args.seconds)
            if "exceptionDetails" in result:
                out["errors"].append("evaluate: " + json.dumps(result["exceptionDetails"])[:2000])
            out["value"] = result.get("result", {}).get("value")
        if args.screenshot:
            shot = browser.call("Page.captureScreenshot", {"format": "png"}, session, timeout=args.seconds)
            data = base64.b64decode(shot["data"])
            with open(args.screenshot, "wb") as f:
                f.write(data)
            out["screenshot"] = png_stats(data)
        # What the page said and fetched, from everything seen so far.
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                out["errors"].append("exception: " + json.dumps(params.get("exceptionDetails", {}))[:2000])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out["errors"].append("console: " + json.dumps(params.get("args", []))[:2000])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out["errors"].append("log: " + params["entry"].get("text", "")[:2000])
            elif method == "Network.requestWillBeSent":
                requested = params.get("request", {}).get("url", "")
                if requested.split("#")[0] != url:
                    out["requests"].append(requested)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
