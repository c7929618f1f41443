#!/usr/bin/env python3
"""A stand-in OpenTelemetry collector for the tests: an OTLP/HTTP receiver on 127.0.0.1 that
decodes each POST to /v1/traces with the OpenTelemetry project's own protobuf definitions (as
scripts/otlp-check.py reads a file: ids from hex, unknown fields refused) and appends what it
received to LOG, one JSON line a request: {"spans": N, "requests": M} where it took them,
{"error": "..."} where they did not parse (answered 400). With MODE `fail` it answers every POST
500, as a collector in trouble does, and logs {"refused": true}.

Usage: otlp-receiver.py ok|fail LOG
Prints the port it listens on, then serves until it is stopped."""
import http.server
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from otlp_json import traces_data  # noqa: E402

mode, log = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, entry):
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces":
            self.record({"error": f"posted to {self.path}"})
            return self.answer(404, {"message": "not found"})
        if mode == "fail":
            self.record({"refused": True})
            return self.answer(500, {"code": 13, "message": "collector failing on purpose"})
        try:
            if self.headers.get("Content-Type") != "application/json":
                raise ValueError(f"content type {self.headers.get('Content-Type')}")
            message = traces_data(body)
        except Exception as error:
            self.record({"error": str(error)})
            return self.answer(400, {"code": 3, "message": str(error)})
        spans = [s for rs in message.resource_spans for ss in rs.scope_spans for s in ss.spans]
        self.record({"spans": len(spans), "requests": len([s for s in spans if not s.parent_span_id])})
        self.answer(200, {})


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
