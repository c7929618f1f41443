#!/usr/bin/env python3
"""Reads an OTLP JSON file (one TracesData a line, as `trace-view export --format otlp` writes
it) with the OpenTelemetry project's own protobuf definitions (PyPI's `opentelemetry-proto`, see
scripts/python-readers.sh): each line parsed into a `TracesData` by protobuf's JSON parser, which
refuses unknown fields and wrong types, after the trace and span ids are turned from OTLP's hex
into protobuf JSON's base64 (the one way the OTLP JSON encoding departs from the protobuf
mapping). Then checks what a tracing backend relies on: ids of the right length, every parent and
every link target present, every child inside its parent, a root's children tiling it.

A request span whose dispatch was made under a recorded trace context has a parent outside the
file (the caller's span, a server's say): such a span — one with `transduce.dispatch` and no
`transduce.part` — counts as a request's root like a span with no parent, and is listed in
`external_parents` as [pid, runtime, dispatch, trace id hex, parent span id hex]. Any other span
whose parent is missing is a problem.

Prints one JSON object: counts, the problems found (empty when none), and each request's root
span as [pid, runtime, dispatch, start, duration, status code, child count] (Unix ns).

Usage: otlp-check.py FILE
Exit status: 0 with the JSON on stdout (problems included); 2 when a line does not parse."""
import sys  # noqa: E402

if sys.argv[1:2] in (["-h"], ["--help"]):
    print(__doc__)
    sys.exit(0)
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from otlp_json import traces_data  # noqa: E402


def main():
    problems = []
    spans = {}  # (trace, span) -> (span, resource attributes)
    lines = 0
    for number, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
        if not line.strip():
            continue
        lines += 1
        try:
            message = traces_data(line)
        except Exception as error:  # protobuf's own refusal
            print(f"otlp-check: line {number} does not parse: {error}", file=sys.stderr)
            return 2
        for rs in message.resource_spans:
            resource = {a.key: a.value for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for span in ss.spans:
                    if len(span.trace_id) != 16 or len(span.span_id) != 8:
                        problems.append(f"line {number}: span {span.name!r} has ids of the wrong length")
                    key = (span.trace_id, span.span_id)
                    if key in spans:
                        problems.append(f"line {number}: span id {span.span_id.hex()} twice in one trace")
                    spans[key] = (span, resource)
    children = {}
    links = 0
    external = set()  # (trace, span) of request spans whose parent is the caller's

    def is_request(span):
        keys = {a.key for a in span.attributes}
        return "transduce.dispatch" in keys and "transduce.part" not in keys

    for (trace, span_id), (span, _) in spans.items():
        if span.end_time_unix_nano < span.start_time_unix_nano:
            problems.append(f"span {span.name!r} ends before it starts")
        if span.parent_span_id:
            parent = spans.get((trace, span.parent_span_id))
            if parent is None:
                if is_request(span):
                    external.add((trace, span_id))
                else:
                    problems.append(f"span {span.name!r}: its parent is not in the file")
                continue
            children.setdefault((trace, span.parent_span_id), []).append(span)
            p = parent[0]
            if span.start_time_unix_nano < p.start_time_unix_nano or span.end_time_unix_nano > p.end_time_unix_nano:
                problems.append(f"span {span.name!r} is not inside its parent {p.name!r}")
        for link in span.links:
            links += 1
            if (link.trace_id, link.span_id) not in spans:
                problems.append(f"span {span.name!r}: its link's target is not in the file")
    roots = []
    external_parents = []
    for (trace, span_id), (span, resource) in spans.items():
        if span.parent_span_id and (trace, span_id) not in external:
            continue
        kids = sorted(children.get((trace, span_id), []), key=lambda s: s.start_time_unix_nano)
        # The parts tile the request: each starts where the one before ended.
        at = span.start_time_unix_nano
        for kid in kids:
            if kid.start_time_unix_nano != at:
                problems.append(f"{span.name!r}: part {kid.name!r} starts at {kid.start_time_unix_nano}, not {at}")
            at = kid.end_time_unix_nano
        if kids and at != span.end_time_unix_nano:
            problems.append(f"{span.name!r}: its parts end at {at}, not at its end")
        attributes = {a.key: a.value for a in span.attributes}
        pid = resource["process.pid"].int_value if "process.pid" in resource else 0
        runtime = resource["transduce.runtime"].int_value
        dispatch = attributes["transduce.dispatch"].int_value
        roots.append([pid, runtime, dispatch,
                      span.start_time_unix_nano, span.end_time_unix_nano - span.start_time_unix_nano,
                      span.status.code, len(kids)])
        if (trace, span_id) in external:
            external_parents.append([pid, runtime, dispatch, trace.hex(), span.parent_span_id.hex()])
    print(json.dumps({
        "lines": lines,
        "spans": len(spans),
        "links": links,
        "roots": sorted(roots),
        "external_parents": sorted(external_parents),
        "problems": problems[:50],
        "problem_count": len(problems),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
