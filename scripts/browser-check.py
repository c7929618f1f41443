#!/usr/bin/env python3
"""Opens a file in headless Chromium and prints as one JSON object what the browser saw: the
console errors and uncaught exceptions (`errors`), every network request the page made other than
for its own file (`requests`), the value of an optional JavaScript expression evaluated once the
page has loaded (`value`, JSON), and, with a screenshot path, the screenshot's size and how much of
it differs from its corner pixel (`screenshot`: width, height, distinct colours sampled, the
corner's RGB, the fraction of pixels unlike the corner's).

Usage: browser-check.py FILE [--eval JS] [--screenshot PNG] [--width W] [--height H] [--seconds S]
                        [--dark]

Chromium is driven over its DevTools protocol on a pipe (--remote-debugging-pipe) and the PNG is
decoded with zlib, so nothing beyond the Python standard library is needed. Exit status: 0 with
the JSON on stdout; 2 when the page did not load within S seconds (default 60); 3 without
Chromium."""
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


class Browser:
    """Headless Chromium with the DevTools protocol on fds 3 (commands) and 4 (replies)."""

    def __init__(self, chromium, profile, width, height):
        commands_r, self.commands = os.pipe()
        self.replies, replies_w = os.pipe()

        def wire():
            # dup2 onto the same number leaves the pipe's close-on-exec flag set: clear it too.
            os.dup2(commands_r, 3)
            os.dup2(replies_w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--remote-debugging-pipe", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "--hide-scrollbars", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, close_fds=False)
        os.close(commands_r)
        os.close(replies_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        if time.monotonic() > deadline:
            raise TimeoutError("chromium did not answer in time")
        chunk = os.read(self.replies, 1 << 16)
        if not chunk:
            raise RuntimeError("chromium exited")
        self.buffer += chunk

    def _messages(self):
        while b"\0" in self.buffer:
            raw, self.buffer = self.buffer.split(b"\0", 1)
            yield json.loads(raw)

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for reply in self._messages():
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
                if "method" in reply:
                    self.events.append(reply)
            self._read(deadline)

    def wait_for(self, method, timeout):
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[: i + 1]
                    return event
            for reply in self._messages():
                self.events.append(reply)
            if any(e.get("method") == method for e in self.events):
                continue
            self._read(deadline)

    def close(self):
        self.process.kill()
        self.process.wait()


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
        browser.call("Page.navigate", {"url": url}, session)
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
                if requested != url:
                    out["requests"].append(requested)
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
