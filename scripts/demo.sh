#!/usr/bin/env bash
# The main job: builds trace-view and runs `trace-view demo`: the built-in workload on the ring
# buffer, then the sequence diagram and contention report of what it recorded. Other arguments go
# to `trace-view demo` (`--save FILE`, `--ascii`, `--width N`, `--color always|never|auto`).
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
scripts/bootstrap.sh demo
exec swift run trace-view demo "$@"
