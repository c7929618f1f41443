"""Headless Chromium driven over its DevTools protocol on a pipe (--remote-debugging-pipe): the
one driver of scripts/browser-check.py and scripts/perfetto-check.py, on the Python standard
library alone."""
import json
import os
import subprocess
import time


class Browser:
    """Headless Chromium with the DevTools protocol on fds 3 (commands) and 4 (replies)."""

    def __init__(self, chromium, profile, width=1280, height=800):
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
