#!/usr/bin/env bash
# Generates, from Vocabulary/events.json, the LTTng provider, its C wrappers, the kind constants,
# the code tables, the LTTng sink, the schema's field table and the trace contract's event table
# (CONTRIBUTING.md: adding an event kind). --check only lists stale files (exit 1 if any).
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
    echo "usage: scripts/vocabulary.sh [--check]"
    echo "  regenerates the files Vocabulary/events.json defines; --check lists stale ones (exit 1)"
    exit 0
fi
cd "$(dirname "$0")/.."
timeout 900 swift build --product vocabulary-gen >/dev/null
exec "$(swift build --show-bin-path)/vocabulary-gen" "$@" "$PWD"
