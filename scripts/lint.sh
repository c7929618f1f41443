#!/usr/bin/env bash
# The house rules CI enforces: `swift format lint --strict` with the package's .swift-format (run
# `swift format format -i -r Sources Tests Benchmarks Fuzz Examples Plugins Tools Package.swift` to fix), and
# SwiftPM's check that every target imports only the targets it declares (a debug build of
# everything, tests included, which the test run then reuses).
set -euo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
echo "lint: swift format lint --strict" >&2
swift format lint --strict --parallel -r Sources Tests Benchmarks Fuzz Examples Plugins Tools Package.swift
echo "lint: explicit target dependency import check" >&2
swift build --build-tests --explicit-target-dependency-import-check error
