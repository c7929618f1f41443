#!/usr/bin/env bash
# Runs `COMMAND... --filter 'TransduceTests\.'` (the runtime's tests), then `COMMAND... --skip
# 'TransduceTests\.'` (the trace tests), both even when the first fails; exits 1 if either failed.
#
# Why apart: on a two-core machine the concurrency pool has two threads, and the trace tests'
# synchronous waits for their child processes (trace-view, LTTng, tmux) can hold both for tens of
# seconds. Sharing one process with them, the runtime's gate test (whose async work needs that
# pool) hit its 30 s hang detector: under ThreadSanitizer twice in about ten CI runs, and once in
# a plain fresh-clone run.
set -uo pipefail
status=0
"$@" --filter 'TransduceTests\.' || status=1
"$@" --skip 'TransduceTests\.' || status=1
exit $status
