#!/usr/bin/env python3
"""A stand-in OpenTelemetry collector for the tests: an OTLP/HTTP receiver on 127.0.0.1 (or
https with CERT and KEY) that decodes each POST to /v1/traces with the OpenTelemetry project's own
protobuf definitions — `application/x-protobuf` as an ExportTraceServiceRequest (which must
re-encode to the same bytes: no unknown field, none out of order), `application/json`
as scripts/otlp-check.py reads a line (ids from hex, unknown fields refused), gzip bodies
inflated first — and appends one JSON line a POST to LOG:

  {"at": seconds since the receiver started, "path", "content_type", "content_encoding",
   "user_agent", "authorization", "bytes": on the wire, "peer_port": the client's port (one
   for every POST of a kept-alive connection), "status": what it answered,
   "spans": N, "requests": M (root spans), "traces_data": the decoded body as hex of its
   canonical protobuf encoding (absent when it did not decode), "error": why (when it did not)}

Modes (the collector behaviours the exporters are compared under):
  ok            200 to every POST (a body in the request's encoding: an empty
                ExportTraceServiceResponse)
  fail          500 to every POST
  bad-request   400 with a google.rpc.Status (code 3) to every POST
  partial       200 with a partial success: 7 spans rejected, "spans too old"
  throttle      429 with Retry-After: 1 to the first two POSTs, then 200
  throttle-date 429 with Retry-After as an HTTP date 2 s ahead to the first POST, then 200
  unavailable   503 without Retry-After to the first two POSTs, then 200
  down          503 to every POST (retried until the exporter gives up)
  slow          every answer 3 s late
  gzip-required 415 to a POST that is not gzip, else 200
  fail-third    500 to the third POST, 200 to the others (an export stopped part-way)

With OTLP_RECEIVER_BRIEF set, `traces_data` is left out (for large exports).

Usage: otlp-receiver.py MODE LOG [CERT KEY]
Prints the port it listens on, then serves until it is stopped."""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import email.utils
import gzip
import http.server
import json
import os
import ssl
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from otlp_json import traces_data  # noqa: E402
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2  # noqa: E402
from opentelemetry.proto.trace.v1 import trace_pb2  # noqa: E402

mode, log = sys.argv[1], sys.argv[2]
started = time.monotonic()
posts = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # As real collectors do (Go's net/http sets TCP_NODELAY): without it, a kept-alive
    # connection waits out the client's delayed ACK (40 ms) between the answer's head and body.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def answer(self, status, message, headers):
        protobuf = "protobuf" in (self.headers.get("Content-Type") or "")
        if message is None:
            message = trace_service_pb2.ExportTraceServiceResponse()
        if protobuf:
            data = message.SerializeToString()
        else:
            from google.protobuf import json_format

            data = json.dumps(json_format.MessageToDict(message)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf" if protobuf else "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        global posts
        length = int(self.headers.get("Content-Length", "0"))
        wire = self.rfile.read(length)
        with lock:
            posts += 1
            n = posts
        entry = {
            "at": round(time.monotonic() - started, 3),
            "path": self.path,
            "content_type": self.headers.get("Content-Type"),
            "content_encoding": self.headers.get("Content-Encoding"),
            "user_agent": self.headers.get("User-Agent"),
            "authorization": self.headers.get("Authorization"),
            "bytes": len(wire),
            "peer_port": self.client_address[1],
        }
        status, message, headers = self.respond(n, wire, entry)
        entry["status"] = status
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        if mode == "slow":
            time.sleep(3)
        try:
            self.answer(status, message, headers)
        except OSError:
            pass  # the exporter gave up waiting

    def decode(self, wire, entry):
        body = wire
        if entry["content_encoding"] == "gzip":
            body = gzip.decompress(wire)
        kind = entry["content_type"]
        if kind == "application/x-protobuf":
            message = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
            # Strict: protobuf keeps unknown fields and takes fields out of order; a body that
            # re-encodes to other bytes had one or the other (or a default written out).
            if message.SerializeToString(deterministic=True) != body:
                raise ValueError("the body is not the canonical encoding of its ExportTraceServiceRequest")
            data = trace_pb2.TracesData(resource_spans=message.resource_spans)
        elif kind == "application/json":
            data = traces_data(body)
        else:
            raise ValueError(f"content type {kind}")
        spans = [s for rs in data.resource_spans for ss in rs.scope_spans for s in ss.spans]
        entry["spans"] = len(spans)
        entry["requests"] = len([s for s in spans if not s.parent_span_id])
        if not os.environ.get("OTLP_RECEIVER_BRIEF"):
            entry["traces_data"] = data.SerializeToString(deterministic=True).hex()

    def respond(self, n, wire, entry):
        if self.path != "/v1/traces":
            entry["error"] = f"posted to {self.path}"
            return 404, None, []
        if mode == "gzip-required" and entry["content_encoding"] != "gzip":
            return 415, None, []
        try:
            self.decode(wire, entry)
        except Exception as error:
            entry["error"] = str(error)
            return 400, None, []
        if mode == "fail" or (mode == "fail-third" and n == 3):
            return 500, None, []
        if mode == "bad-request":
            return 400, None, []
        if mode == "down":
            return 503, None, []
        if mode == "throttle" and n <= 2:
            return 429, None, [("Retry-After", "1")]
        if mode == "throttle-date" and n <= 1:
            return 429, None, [("Retry-After", email.utils.formatdate(time.time() + 2, usegmt=True))]
        if mode == "unavailable" and n <= 2:
            return 503, None, []
        if mode == "partial":
            message = trace_service_pb2.ExportTraceServiceResponse()
            message.partial_success.rejected_spans = 7
            message.partial_success.error_message = "spans too old"
            return 200, message, []
        return 200, None, []


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if len(sys.argv) > 4:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[3], sys.argv[4])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
