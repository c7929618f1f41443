#!/usr/bin/env bash
# Best effort: puts the test-time readers of the export formats in a Python environment of the
# checkout's own, .build/py: the Perfetto project's protobuf definitions (PyPI's `perfetto`, with
# `protobuf`) that read the Perfetto export (scripts/perfetto-proto-check.py), and the
# OpenTelemetry project's (`opentelemetry-proto`). Needs python3 with venv and a package index;
# without them it says so and exits 0, and the tests that need them say they are skipped.
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
target=.build/py
# The versions the tests were written against (PyPI), pinned so that every machine reads alike.
packages=(perfetto==0.59.1 protobuf opentelemetry-proto==1.45.2 opentelemetry-sdk==1.45.2 opentelemetry-exporter-otlp-proto-http==1.45.2 jsonschema==4.26.0)
if [ -x "$target/bin/python" ] && "$target/bin/python" -c 'import perfetto.protos.perfetto.trace.perfetto_trace_pb2, opentelemetry.proto.trace.v1.trace_pb2, opentelemetry.exporter.otlp.proto.http.trace_exporter, jsonschema' 2>/dev/null; then
    exit 0
fi
python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -m venv --help >/dev/null 2>&1; then
    echo "python-readers: no python3 with venv; the tests that read exports with the formats' own definitions will be skipped" >&2
    exit 0
fi
mkdir -p .build
rm -rf "$target"
if ! "$python" -m venv "$target" >&2 || ! timeout 300 "$target/bin/pip" install --quiet "${packages[@]}" >&2; then
    echo "python-readers: could not install ${packages[*]}; the tests that read exports with the formats' own definitions will be skipped" >&2
    rm -rf "$target"
    exit 0
fi
echo "python-readers: ${packages[*]} are in $target" >&2
