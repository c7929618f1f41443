#!/usr/bin/env bash
# Runs COMMAND... on a machine as loaded as a shared CI runner or a busy laptop: BUSY_LOOPS busy
# loops (default 4, on any number of cores) and, when LTTng is here, a second program tracing:
# TracedExample run over and over under an LTTng session of its own that enables `transduce:*`
# (in snapshot mode: it writes nothing to disk), so the suite's LTTng sessions see another
# process's events and discards beside their own. The loops, the traced program and its session
# end with the run, whatever ends it. Exits with COMMAND's status.
#   scripts/under-load.sh swift test          # plain `swift test`, loaded
#   scripts/under-load.sh scripts/test.sh     # the README's test command, loaded
set -uo pipefail
case "${1:-}" in -h | --help | "") awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
pids=()
session="under-load-$$"
cleanup() {
    kill "${pids[@]}" 2>/dev/null
    wait 2>/dev/null
    lttng destroy "$session" >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for _ in $(seq "${BUSY_LOOPS:-4}"); do
    (while :; do :; done) &
    pids+=($!)
done
traced="no second traced program (no LTTng or no TracedExample build)"
example="$(swift build --show-bin-path 2>/dev/null)/TracedExample"
if command -v lttng >/dev/null 2>&1 && lttng list >/dev/null 2>&1 && [ -x "$example" ]; then
    if lttng create "$session" --snapshot >/dev/null 2>&1 &&
        lttng enable-event -s "$session" -u 'transduce:*' >/dev/null 2>&1 &&
        lttng start "$session" >/dev/null 2>&1; then
        scratch=$(mktemp -d)
        (while :; do "$example" --repeat 20 "$scratch/ring.tdtrace" >/dev/null 2>&1 || sleep 1; done) &
        pids+=($!)
        traced="TracedExample traced by LTTng session $session"
    fi
fi
echo "under-load: ${BUSY_LOOPS:-4} busy loops and $traced beside: $*" >&2
"$@"
