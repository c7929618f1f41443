#!/usr/bin/env bash
# Repeatable instruction counts of the hot paths, with valgrind's callgrind, on the release build
# of `transduce-callgrind` (Benchmarks/transduce-callgrind):
#   record_instructions: one TraceRecorder.record of a transduce event (clock read included),
#                        counted only inside the per-record function (--toggle-collect)
#   send_instructions:   one uncontended `send` on BaseRuntime: the whole program run with N and
#                        with 3N sends, the difference divided by 2N (an async function's body is
#                        split into partial functions, which --toggle-collect cannot bracket).
#                        Each async operation is called directly in its loop, never through a
#                        wrapper function, which would add the same cost to an operation and its
#                        floor and flatter their ratio
#   hop_instructions:    one call of an empty method on a plain actor from a detached task: the
#                        baseline of send, the same way
#   disabled_instructions: one send with a disabled trace recorder attached (its ratio to
#                        send_instructions is the instruction count behind disabled_ratio)
#   traced_send_instructions: one send with a trace recorder feeding its ring buffer (LTTng off);
#                        traced_send_instructions_ratio is it ÷ send_instructions (a send under
#                        no TraceContext: what the context costs unset is in it)
#   context_send_instructions: the traced send made under a set TraceContext (one event more)
#   request_task_instructions, task_floor_instructions: a request whose effect is a task that
#                        returns `.response`, and a bare task resuming a continuation (its floor);
#                        all threads' instructions, as valgrind runs them one at a time
#   observable_send_instructions: one `send` on EffectObservable on the main actor, the same way
#
# With --check, each count is also held to its limit in Benchmarks/Thresholds/callgrind.tsv and the
# script exits 1 if one is beyond it (CI runs it so: instruction counts do not move with the
# machine's load, so a limit ~10 % above today's figure fails only on a real regression of the
# fast path or the recorder).
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
check=0
[ "${1:-}" = --check ] && check=1
declare -A figures=()
over=0
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
    figures[record_instructions]=$((record / n)) &&
    echo "record_instructions: $((record / n)) per record ($record over $n)"
small=2000
large=6000
per() { # mode small large: instructions per operation, from the difference of two runs
    local a b
    a=$(total "$1-small" -- "$1" "$2") && b=$(total "$1-large" -- "$1" "$3") || return 1
    echo $(((b - a) / ($3 - $2)))
}
ratio() { awk "BEGIN{printf \"%.${3:-2}f\", $1/$2}"; }
send=$(per send $small $large) && figures[send_instructions]=$send && echo "send_instructions: $send per send"
hop=$(per hop $small $large) && echo "hop_instructions: $hop per call (send_vs_hop_instructions: $(ratio "$send" "$hop"))"
disabled=$(per disabled $small $large) && figures[disabled_instructions_ratio]=$(ratio "$send" "$disabled" 3) &&
    echo "disabled_instructions: $disabled per send (disabled_instructions_ratio: $(ratio "$send" "$disabled" 3))"
traced=$(per traced $small $large) && figures[traced_send_instructions_ratio]=$(ratio "$traced" "$send" 3) &&
    echo "traced_send_instructions: $traced per send (traced_send_instructions_ratio: $(ratio "$traced" "$send" 3))"
context=$(per context $small $large) &&
    echo "context_send_instructions: $context per send (over traced: $(ratio "$context" "$traced" 3))"
request=$(per request 1000 3000) && floor=$(per floor 1000 3000) &&
    figures[request_task_ratio]=$(ratio "$request" "$floor") &&
    echo "request_task_instructions: $request, task_floor_instructions: $floor (ratio $(ratio "$request" "$floor"))"
observable=$(per observable $small $large) && figures[observable_send_instructions]=$observable &&
    echo "observable_send_instructions: $observable per send"
[ $check -eq 1 ] || exit 0
# Limits: a count's name, max (at or below) or min (at or above), and its bound.
while IFS=$'\t' read -r name kind bound; do
    case "$name" in '' | '#'*) continue ;; esac
    figure=${figures[$name]:-}
    if [ -z "$figure" ]; then
        echo "callgrind.sh: $name was not measured" >&2
        over=1
    elif awk -v f="$figure" -v b="$bound" -v k="$kind" 'BEGIN { exit !((k == "max" && f > b) || (k == "min" && f < b)) }'; then
        echo "callgrind.sh: $name is $figure, beyond its limit ($kind $bound, Benchmarks/Thresholds/callgrind.tsv)" >&2
        over=1
    fi
done <Benchmarks/Thresholds/callgrind.tsv
[ $over -eq 0 ] && echo "callgrind.sh: every count within its limit"
exit $over
