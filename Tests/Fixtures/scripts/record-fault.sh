#!/usr/bin/env bash
# Runs `trace-view record` against an LTTng of its own that fails as asked, inside a private
# mount namespace (run it under `unshare --mount --propagation private --fork`): a tmpfs over
# /var/run/lttng gives this namespace its own root session daemon, so the machine's LTTng and
# its sessions are never touched.
#
#   record-fault.sh full|lttng-consumerd|lttng-sessiond TRACE-VIEW TRACED-EXAMPLE WORKDIR
#
# full: the trace's file system (a 1 MiB tmpfs) fills up; lttng-consumerd, lttng-sessiond:
# that daemon is killed (SIGKILL) while the command runs. Prints "record exit N", then
# trace-view's standard error.
set -u
what=$1 traceview=$2 example=$3 work=$4
mount -t tmpfs tmpfs /var/run/lttng || exit 91
export LTTNG_HOME=$work/home
mkdir -p "$LTTNG_HOME"
mine=$(readlink /proc/self/ns/mnt)
ours() { for p in $(pgrep -x "$1"); do [ "$(readlink "/proc/$p/ns/mnt")" = "$mine" ] && echo "$p"; done; }
cleanup() { for p in $(pgrep lttng); do [ "$(readlink "/proc/$p/ns/mnt")" = "$mine" ] && kill -9 "$p"; done; }
trap cleanup EXIT
timeout 60 lttng-sessiond --daemonize || exit 93
if [ "$what" = full ]; then
    mkdir -p "$work/small" && mount -t tmpfs -o size=1m tmpfs "$work/small" || exit 92
    timeout 300 "$traceview" record --output "$work/small/t" -- "$example" --repeat 300 "$work/ring.tdtrace" \
        >"$work/out" 2>"$work/err"
    echo "record exit $?"
else
    mkfifo "$work/in"
    timeout 300 "$traceview" record --output "$work/t" -- "$example" --serve "$work/ring.tdtrace" \
        <"$work/in" >"$work/out" 2>"$work/err" &
    record=$!
    exec 3>"$work/in"
    for _ in $(seq 600); do grep -q ready "$work/out" 2>/dev/null && break; sleep 0.1; done
    kill -9 $(ours "$what")
    sleep 1
    exec 3>&-
    wait $record
    echo "record exit $?"
fi
cat "$work/err"
