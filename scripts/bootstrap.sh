#!/usr/bin/env bash
# Installs the Debian packages the project needs when any is missing (uses sudo when not root),
# and, for the tests, the Python readers of the export formats (scripts/python-readers.sh).
# Safe to run repeatedly: it does nothing when all exist.
#
#   scripts/bootstrap.sh        everything the tests need
#   scripts/bootstrap.sh demo   what building and using trace-view needs (no test-only tools)
#
# When it installs the LTTng-UST or libbabeltrace2 headers into a checkout already built without
# them, it removes the C targets' objects, so the next build compiles the real tracepoints
# and reader instead of keeping the stubs (an incremental build would not notice the headers).
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
# The tracepoints' headers, the session tools, the CTF reader, and libcurl and zlib (the OTLP
# exporter's HTTP, TLS and gzip): trace-view itself.
packages=(liblttng-ust-dev lttng-tools babeltrace2 libbabeltrace2-dev libcurl4-openssl-dev zlib1g-dev)
if [ "${1:-}" != demo ]; then
    # plantuml: the tests check the PlantUML export by rendering it (it brings a Java runtime);
    # chromium and python3-pip: they open the Chrome export in the Perfetto UI
    # (scripts/perfetto-ui.sh); python3 reads the tables; tmux drives the terminal UI's tests;
    # time (GNU time) measures the peak memory of trace-view and its children in the fault tests;
    # valgrind counts the fast path's instructions (Benchmarks/callgrind.sh, CI's limits).
    # man-db and bash: the tests read the man page with `man -l` and load the completion script;
    # less: the pager the tests page long output through.
    # eslint (and the module its command needs, which Debian only recommends): scripts/lint.sh
    # lints the report's script.
    # python3-scipy: `diff`'s Mann-Whitney U test is checked against SciPy's.
    packages+=(plantuml chromium python3 python3-pip python3-scipy tmux time valgrind man-db bash less eslint node-v8-compile-cache)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "bootstrap: installing ${missing[*]}" >&2
    $sudo apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
    case " ${missing[*]} " in
    *" liblttng-ust-dev "* | *" libbabeltrace2-dev "*)
        for build in .build .build-tsan; do
            for target in CLTTng CBabeltrace; do
                if compgen -G "$build/*/$target.build/*.o" >/dev/null; then
                    echo "bootstrap: rebuilding $target in $build (it was built without the headers just installed)" >&2
                    rm -f "$build"/*/"$target".build/*.o
                fi
            done
        done
        ;;
    esac
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "bootstrap: the Swift toolchain (6.2 or later) must be on PATH" >&2
    exit 1
fi
# The formats' own readers for the tests (Python packages, in .build/py; best effort).
if [ "${1:-}" != demo ]; then
    scripts/python-readers.sh
fi
