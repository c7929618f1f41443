#!/usr/bin/env bash
# Builds the package the tests of `trace-view test-from` compile written tests in
# (.build/test-from, from Tests/Fixtures/test-from/Package.swift and the feature
# Tests/TraceViewerTests/TestFrom/Pantry.swift), so that the test itself builds only the feature
# and the tests it writes. CI runs it before the busy test run: built on a quiet machine, this
# package's copy of Transduce takes a third of the time it takes beside the busy loops.
#
#   scripts/test-from-package.sh
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
package=.build/test-from/package
rm -rf "$package"
mkdir -p "$package/Sources/Feature" "$package/Tests/FeatureTests"
sed "s|@ROOT@|$PWD|" Tests/Fixtures/test-from/Package.swift > "$package/Package.swift"
cp Tests/TraceViewerTests/TestFrom/Pantry.swift "$package/Sources/Feature/Pantry.swift"
printf 'import Testing\n' > "$package/Tests/FeatureTests/Written.swift"
swift build --build-tests --package-path "$package" --scratch-path .build/test-from/scratch
