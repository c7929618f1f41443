#!/usr/bin/env bash
# Runs scripts/test.sh with every core kept busy by other programs (one busy loop per core),
# as a CI machine shared with other jobs is: the suite must hold there, not only on a quiet
# machine. The loops end with the run, whatever ends it.
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
loops=()
trap 'kill "${loops[@]}" 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    loops+=($!)
done
echo "busy-test: ${#loops[@]} busy loops beside the suite" >&2
scripts/test.sh "$@"
