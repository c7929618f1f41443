#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer. LTTng is switched off for it (TRANSDUCE_LTTNG=off):
# liblttng-ust's helper threads trip TSan's "thread finished with ignores enabled" check, so the
# LTTng end-to-end test skips here and runs in scripts/test.sh instead.
#
# Without arguments in one run per group of test targets (scripts/test-runs.sh), of which the
# child-process run keeps only the tests whose children run threads of their own (the TUI's
# reading thread, the live view's feeds, the recorder's dumps; children are five to ten times
# slower under TSan, and the other child tests exercise single-threaded code the plain runs
# cover); with arguments, one run.
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export TRANSDUCE_LTTNG=off
if [ $# -gt 0 ]; then
    exec swift test --sanitize=thread --scratch-path .build-tsan "$@"
fi
export CHILD_TESTS=${CHILD_TESTS:-'TraceViewerTests\.(TUITests|DumpTests|CrashDumpTests)/'}
exec scripts/test-runs.sh swift test --sanitize=thread --scratch-path .build-tsan
