#!/usr/bin/env python3
"""The OpenTelemetry Python SDK's own OTLP/HTTP exporter (PyPI's
`opentelemetry-exporter-otlp-proto-http`), run the way an app runs it, for the tests that compare
trace-view's sending with it: SPANS spans made by the SDK's tracer, exported as one batch to
ENDPOINT with the given compression (gzip or none) and timeout in seconds. Prints one JSON
object: {"success": bool, "seconds": how long the export took}.

Usage: otlp-reference-export.py ENDPOINT COMPRESSION TIMEOUT [SPANS]"""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import json
import logging
import sys
import time

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

logging.basicConfig(level=logging.CRITICAL)
endpoint, compression, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
count = int(sys.argv[4]) if len(sys.argv) > 4 else 12

memory = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(memory))
tracer = provider.get_tracer("reference")
for i in range(count):
    with tracer.start_as_current_span(f"request({i})"):
        pass
spans = memory.get_finished_spans()

exporter = OTLPSpanExporter(
    endpoint=endpoint,
    timeout=timeout,
    compression=Compression.Gzip if compression == "gzip" else Compression.NoCompression,
)
started = time.monotonic()
result = exporter.export(spans)
print(json.dumps({"success": result == SpanExportResult.SUCCESS, "seconds": round(time.monotonic() - started, 3)}))
