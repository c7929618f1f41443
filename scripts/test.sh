#!/usr/bin/env bash
# Runs the whole test suite. Installs missing system packages first and starts an LTTng session
# daemon (root or not) when none runs, so the LTTng tests run instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
if command -v lttng-sessiond >/dev/null 2>&1 && ! lttng list >/dev/null 2>&1; then
    lttng-sessiond --daemonize >/dev/null 2>&1 || echo "test: could not start lttng-sessiond" >&2
fi
exec swift test "$@"
