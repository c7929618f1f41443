#!/usr/bin/env bash
# The house rules CI enforces: `swift format lint --strict` with the package's .swift-format (run
# `swift format format -i -r Sources Tests Benchmarks Fuzz Examples Plugins Tools Package.swift` to fix),
# ESLint on the report's script (scripts/report-eslintrc.json: the recommended rules, and no
# markup from strings, no network, no eval), and SwiftPM's check that every target imports only
# the targets it declares (a debug build of everything, tests included, which the test run then
# reuses).
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
echo "lint: swift format lint --strict" >&2
swift format lint --strict --parallel -r Sources Tests Benchmarks Fuzz Examples Plugins Tools Package.swift
echo "lint: eslint Sources/trace-view/Report/*.js" >&2
command -v eslint >/dev/null || { echo "lint: eslint is not installed (scripts/bootstrap.sh installs it)" >&2; exit 1; }
# Debian's ESLint keeps its modules in /usr/share/nodejs, which a Node.js not from Debian does not
# search; the unix format needs none of the colour modules.
NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs eslint --no-eslintrc -c scripts/report-eslintrc.json -f unix \
    Sources/trace-view/Report/*.js
echo "lint: explicit target dependency import check" >&2
swift build --build-tests --explicit-target-dependency-import-check error
