#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/) with AddressSanitizer and runs each for SECONDS (default
# 60) on its committed corpus. A crash fails the run; its input is copied to
# Tests/Fixtures/regressions/, which the normal test suite replays.
#
#   scripts/fuzz.sh [SECONDS [RUNS]]   # build and run every target
#   FUZZ_TARGETS=jsonl scripts/fuzz.sh # one target
#
# With RUNS (as CI gives), each target starts from the committed corpus alone with a fixed seed
# (FUZZ_SEED, default 1) and stops after RUNS inputs or SECONDS, whichever comes first: the run is
# then the same sequence of inputs on every machine (a slower one runs a prefix of it), so CI
# fails only on what the committed code really does with those inputs. Without RUNS, a target
# keeps its corpus under .build/fuzz between runs and explores with a random seed.
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
seconds=${1:-60}
runs=${2:-}
out=.build/fuzz
mkdir -p "$out"
san=(-sanitize=fuzzer,address)
includes=(-I Sources/CTransduceClock/include -I Sources/CTraceRing/include -I Sources/CLTTng/include)
swiftc_lib() { # module name, then sources
    local name=$1
    shift
    swiftc -O -parse-as-library -swift-version 6 -package-name transduce "${san[@]}" -module-name "$name" -I "$out" "${includes[@]}" \
        -emit-module -emit-module-path "$out/$name.swiftmodule" -emit-library -static -o "$out/lib$name.a" "$@" 2>>"$build_log"
}
echo "fuzz: building (AddressSanitizer, libFuzzer)" >&2
build_log="$out/build.log"
: >"$build_log"
built=0
trap '[ $? -eq 0 ] || [ $built -eq 1 ] || { echo "fuzz: the build failed; its log:" >&2; tail -40 "$build_log" >&2; }' EXIT
# The C of CTransduceClock, CTraceRing and CLTTng but the LTTng probes (the harness records
# nothing to LTTng): every file there, generated ones (scripts/vocabulary.sh) included.
c_objects=()
for source in Sources/CTransduceClock/*.c Sources/CTraceRing/*.c Sources/CLTTng/*.c; do
    name=$(basename "$source" .c)
    [ "$name" = clttng_probes ] && continue
    clang -O1 -g -fsanitize=fuzzer-no-link,address "${includes[@]}" \
        -c "$source" -o "$out/$name.o" 2>>"$build_log"
    c_objects+=("$out/$name.o")
done
clang -O1 -g -c Fuzz/CFuzz/mutator.c -o "$out/mutator.o" 2>>"$build_log"
swiftc_lib Transduce $(find Sources/Transduce -name '*.swift')
swiftc_lib TransduceTrace $(find Sources/TransduceTrace -name '*.swift')
swiftc_lib TraceFuzzHarness Fuzz/Harness/*.swift
link() { # target, extra objects
    local target=$1
    shift
    swiftc -O -parse-as-library -swift-version 6 -package-name transduce "${san[@]}" -I "$out" "${includes[@]}" "Fuzz/Targets/$target.swift" \
        "$out/libTraceFuzzHarness.a" "$out/libTransduceTrace.a" "$out/libTransduce.a" "${c_objects[@]}" \
        "$@" -ldl -o "$out/fuzz-$target" 2>>"$build_log"
}
link binary "$out/mutator.o"
link jsonl
link index
built=1

export SWIFT_BACKTRACE=enable=no # the Swift backtracer and ASan both want the crash signals
regressions=Tests/Fixtures/regressions
status=0
for target in ${FUZZ_TARGETS:-binary jsonl index}; do
    corpus="$out/corpus-$target"
    limits=()
    if [ -n "$runs" ]; then
        corpus="$out/corpus-$target-seeded"
        rm -rf "$corpus"
        limits=(-runs="$runs" -seed="${FUZZ_SEED:-1}")
    fi
    rm -rf "$out/crashes-$target"
    mkdir -p "$corpus" "$out/crashes-$target"
    cp -n Fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
    dict=()
    [ -f "Fuzz/$target.dict" ] && dict=(-dict="Fuzz/$target.dict")
    echo "fuzz: $target for ${seconds}s" >&2
    log="$out/fuzz-$target.log"
    if ! "$out/fuzz-$target" "$corpus" Fuzz/corpus/"$target" "${dict[@]}" -max_total_time="$seconds" "${limits[@]}" -max_len=65536 \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$out/crashes-$target/" >"$log" 2>&1; then
        status=1
        echo "fuzz: $target FAILED; crash inputs (if any) kept in $regressions:" >&2
        mkdir -p "$regressions"
        for crash in "$out/crashes-$target"/*; do
            [ -f "$crash" ] || continue
            cp "$crash" "$regressions/$target-$(basename "$crash")"
            echo "  $regressions/$target-$(basename "$crash")" >&2
        done
        grep -E "ERROR|Fatal error|SUMMARY" "$log" | head -20 >&2 || tail -20 "$log" >&2
    fi
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$log" | sed "s/^/fuzz: $target: /" >&2 || true
done
exit $status
