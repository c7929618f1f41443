#!/usr/bin/env bash
# Repeatable instruction counts of the hot paths, with valgrind's callgrind. Counts only inside
# the per-operation function (--toggle-collect) and divides by the number of operations, so
# start-up and set-up are left out.
#   record_instructions: one TraceRecorder.record of a transduce event (clock read included)
#   send_instructions:   one uncontended `send` on BaseRuntime (see the note printed if
#                        valgrind cannot run Swift concurrency on this machine)
set -uo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --product transduce-bench >/dev/null || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# valgrind 3.19 rejects the DWARF 5 debug info of Swift 6 binaries: count on a copy without it
# (symbols stay, so --toggle-collect still finds the functions).
objcopy --strip-debug .build/release/transduce-bench "$out/bench"
count() { # name function-pattern operations args...
    local name=$1 pattern=$2 n=$3
    shift 3
    if ! valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" --toggle-collect="$pattern" \
        "$out/bench" "$@" >/dev/null 2>"$out/$name.log"; then
        echo "$name: valgrind failed ($(grep -m1 -E 'Valgrind|error' "$out/$name.log" || echo 'see valgrind output'))"
        return
    fi
    local total
    total=$(grep -m1 '^summary:' "$out/$name.out" | awk '{print $2}')
    echo "$name: $((total / n)) instructions per operation ($total over $n)"
}
count record_instructions '*callgrindRecordOne*' 100000 --callgrind-record 100000
count send_instructions '*callgrindSendOne*' 10000 --callgrind-send 10000
