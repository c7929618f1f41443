#!/usr/bin/env bash
# Repeatable instruction counts of the hot paths, with valgrind's callgrind, on the release build
# of `transduce-callgrind` (Benchmarks/transduce-callgrind):
#   record_instructions: one TraceRecorder.record of a transduce event (clock read included),
#                        counted only inside the per-record function (--toggle-collect)
#   send_instructions:   one uncontended `send` on BaseRuntime: the whole program run with N and
#                        with 3N sends, the difference divided by 2N (an async function's body is
#                        split into partial functions, which --toggle-collect cannot bracket)
#   observable_send_instructions: one `send` on EffectObservable on the main actor, the same way
set -uo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --product transduce-callgrind >/dev/null || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# valgrind 3.19 rejects the DWARF 5 debug info of Swift 6 binaries: count on a copy without it
# (symbols stay, so --toggle-collect still finds the functions).
objcopy --strip-debug .build/release/transduce-callgrind "$out/bin"
total() { # output-name [valgrind options] -- program arguments
    local name=$1
    shift
    local options=()
    while [ "$1" != "--" ]; do options+=("$1"); shift; done
    shift
    if ! valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" "${options[@]}" "$out/bin" "$@" \
        >/dev/null 2>"$out/$name.log"; then
        echo "callgrind.sh: valgrind failed on $*: $(grep -m1 -E 'Valgrind|error' "$out/$name.log")" >&2
        return 1
    fi
    grep -m1 '^summary:' "$out/$name.out" | awk '{print $2}'
}
n=100000
record=$(total record --toggle-collect='*measuredRecord*' -- record $n) &&
    echo "record_instructions: $((record / n)) per record ($record over $n)"
small=2000
large=6000
a=$(total send-small -- send $small) && b=$(total send-large -- send $large) &&
    echo "send_instructions: $(((b - a) / (large - small))) per send (($b - $a) over $((large - small)))"
a=$(total observable-small -- observable $small) && b=$(total observable-large -- observable $large) &&
    echo "observable_send_instructions: $(((b - a) / (large - small))) per send (($b - $a) over $((large - small)))"
