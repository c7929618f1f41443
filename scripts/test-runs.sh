#!/usr/bin/env bash
# Runs `COMMAND...` (`swift test` and its options) once per group of test targets, every group
# even when one fails; exits 1 if any failed. The split is the targets (Package.swift):
#   1. TransduceTests, TransduceTestingTests, VocabularyGeneratorTests: the runtime, the test
#      store and clocks, the README's and guides' examples, the vocabulary generator;
#   2. TraceAnalysisTests: the recorder, rings, files, shapes and analyses, in process;
#   3. TraceOracleTests: the oracle (seeded workloads checked against their traces);
#   4. TraceViewerTests: trace-view as a user runs it (child processes, tmux, Chromium, readers);
#   5. TraceLTTngTests: LTTng sessions, babeltrace2, record and live;
#   6. TraceBoundsTests, alone: millions of events through every view, each keeping a core busy.
# `swift test --filter TARGET` runs one of them. With CHILD_TESTS set (a `--filter` pattern),
# runs 4 and 5 are one run of the tests it matches: the ThreadSanitizer run keeps the child-process
# tests whose children run threads of their own.
#
# Why apart, when plain `swift test` passes too: each run is a process with its own concurrency
# pool and its own log, so a failure names its kind, a hang stops one run, and the oracle's and the
# bounds' seconds of CPU do not share two cores with the terminal UI's screen waits.
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
runs=(
    'TransduceTests\.|TransduceTestingTests\.|VocabularyGeneratorTests\.'
    'TraceAnalysisTests\.'
    'TraceOracleTests\.'
    'TraceViewerTests\.'
    'TraceLTTngTests\.'
    'TraceBoundsTests\.'
)
# Every test target of the manifest is in one of the runs: a new one cannot be left out unseen.
targets=$(sed -n 's/.*\.testTarget(name: "\([A-Za-z]*\)".*/\1/p; /\.testTarget($/{n; s/.*name: "\([A-Za-z]*\)".*/\1/p}' Package.swift)
for target in $targets; do
    if ! printf '%s\n' "${runs[@]}" | grep -q "\\b$target\\\\\\."; then
        echo "test-runs: the test target $target is in no run (scripts/test-runs.sh)" >&2
        exit 2
    fi
done
status=0
for run in "${runs[@]}"; do
    case "$run" in
    TraceLTTngTests*) [ -z "${CHILD_TESTS:-}" ] || continue ;;
    TraceViewerTests*) [ -z "${CHILD_TESTS:-}" ] || run=$CHILD_TESTS ;;
    esac
    echo "test-runs: $* --filter '$run'" >&2
    "$@" --filter "$run" || status=1
done
exit $status
