#!/usr/bin/env bash
# Repeatable instruction counts of the hot paths, with valgrind's callgrind:
#   - one ring-buffer record (TraceRecorder.record of a transduce event, clock read included)
#   - one uncontended `send` on BaseRuntime
# Counts only inside the named per-operation functions (--toggle-collect) and divides by the
# number of operations, so start-up and set-up are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --product transduce-bench >/dev/null
bench=.build/release/transduce-bench
out=$(mktemp -d)
count() { # name function-pattern operations -- args
    local name=$1 pattern=$2 n=$3
    shift 3
    valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" --toggle-collect="$pattern" "$bench" "$@" >/dev/null 2>"$out/$name.log"
    local total
    total=$(grep -E '^summary:|^totals:' "$out/$name.out" | head -1 | awk '{print $2}')
    echo "$name: $((total / n)) instructions per operation ($total over $n)"
}
count record_instructions '*callgrindRecordOne*' 100000 --callgrind-record 100000
count send_instructions '*callgrindSendOne*' 10000 --callgrind-send 10000
rm -rf "$out"
