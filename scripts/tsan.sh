#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer. LTTng is switched off for it (TRANSDUCE_LTTNG=off):
# liblttng-ust's helper threads trip TSan's "thread finished with ignores enabled" check, so the
# LTTng end-to-end test skips here and runs in scripts/test.sh instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
export TRANSDUCE_LTTNG=off
exec swift test --sanitize=thread --scratch-path .build-tsan "$@"
