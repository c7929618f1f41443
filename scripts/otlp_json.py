"""OTLP's JSON encoding read with the OpenTelemetry project's own protobuf definitions: the one
place scripts/otlp-check.py and scripts/otlp-receiver.py turn a line or a body into a
`TracesData`."""
import base64
import json

from google.protobuf import json_format
from opentelemetry.proto.trace.v1 import trace_pb2


def _b64(hex_id):
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def _rewrite(data):
    """OTLP JSON's hex trace and span ids as protobuf JSON's base64 (the one way the OTLP JSON
    encoding departs from the protobuf mapping)."""
    for rs in data.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = _b64(span[key])
                for link in span.get("links", []):
                    link["traceId"] = _b64(link["traceId"])
                    link["spanId"] = _b64(link["spanId"])
    return data


def traces_data(text):
    """`text` (OTLP JSON) as a TracesData; protobuf's parser refuses unknown fields and wrong
    types (it raises)."""
    return json_format.ParseDict(_rewrite(json.loads(text)), trace_pb2.TracesData())
