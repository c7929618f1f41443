#!/usr/bin/env bash
# Runs scripts/test.sh (with its arguments) as CI's busy step: beside four busy loops and a
# second program traced by LTTng (scripts/under-load.sh), as a CI machine shared with other jobs
# is: the suite must hold there, not only on a quiet machine.
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
# The package that test-from's tests compile written tests in, built first on the quiet machine
# (best effort: the test builds whatever is missing).
mkdir -p .build/test-from
if ! scripts/test-from-package.sh > .build/test-from/prebuild.log 2>&1; then
    echo "busy-test: scripts/test-from-package.sh failed (its test builds the package):" >&2
    tail -20 .build/test-from/prebuild.log >&2
fi
exec scripts/under-load.sh scripts/test.sh "$@"
