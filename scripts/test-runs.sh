#!/usr/bin/env bash
# Runs `COMMAND...` four times, each on one kind of test, all four even when one fails; exits 1
# if any failed:
#   1. the runtime's tests and TransduceTesting's (`TransduceTests.`, `TransduceTestingTests.`);
#   2. the trace library's in-process tests, timing-sensitive (the oracles, the stress and ring
#      tests, the recorder, the slow-request analyses);
#   3. the rest: the tests that run child processes (trace-view, LTTng, relay daemons, tmux,
#      Chromium);
#   4. the memory-bound tests (`BoundsTests`), alone: each keeps a core busy for seconds with
#      millions of events, and beside them the in-process oracle runs of run 3 timed out.
# With CHILD_TESTS set (a `--filter` pattern), run 3 runs only the tests it matches: the
# ThreadSanitizer run keeps the child-process tests whose children run threads of their own.
#
# Why apart: on a two-core machine the concurrency pool has two threads, and the tests of run 3
# wait synchronously for their child processes (for tens of seconds on a busy machine), holding
# those threads. Sharing one process with them, the async tests' hang detectors fired: the gate
# test under ThreadSanitizer, the stress test and oracle seed 2 with both cores busy ("timed out
# waiting for operation"), each passing alone.
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
in_process='TransduceTraceTests\.(OracleTests|TraceRingsTests|OracleProcessesTests|ShapeTests|RingBufferTests|RecorderTests|LiveWindowTests|InvariantCheckerTests|ShapeMessageTests|TraceFileTests|VocabularyTests|SlowRequestTests)/'
heavy='TransduceTraceTests\.BoundsTests/'
status=0
runtime='TransduceTests\.|TransduceTestingTests\.'
"$@" --filter "$runtime" || status=1
"$@" --filter "$in_process" || status=1
if [ -n "${CHILD_TESTS:-}" ]; then
    "$@" --filter "$CHILD_TESTS" || status=1
else
    "$@" --skip "$runtime" --skip "$in_process" --skip "$heavy" || status=1
fi
"$@" --filter "$heavy" || status=1
exit $status
