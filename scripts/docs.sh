#!/usr/bin/env bash
# Builds the DocC documentation of Transduce, TransduceTrace and TransduceTesting with the toolchain's `docc` (no
# plugin): symbol graphs from the debug build's modules, then `docc convert` with warnings as
# errors, after checking that every public declaration has a doc comment. Output:
# .build/docs/<Module> (open .build/docs/<Module>/index.html through `docc preview`, or serve it).
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
swift build --target TransduceTrace
swift build --target TransduceTesting
modules=.build/debug/Modules
graphs=.build/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
status=0
for module in Transduce TransduceTrace TransduceTesting; do
    mkdir -p "$graphs/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$modules" -I Sources/CTransduceClock/include -I Sources/CTraceRing/include -I Sources/CLTTng/include -target "$triple" \
        -output-dir "$graphs/$module" -minimum-access-level public
    missing=$(scripts/undocumented.py "$graphs/$module/$module.symbols.json")
    if [ -n "$missing" ]; then
        echo "docs: public declarations of $module without a doc comment:" >&2
        echo "$missing" >&2
        status=1
    fi
    rm -rf ".build/docs/$module" && mkdir -p .build/docs
    docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs/$module" \
        --output-path ".build/docs/$module" --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.transduce.$module" --warnings-as-errors || status=1
done
exit $status
