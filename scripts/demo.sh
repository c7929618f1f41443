#!/usr/bin/env bash
# The main job: builds and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# The LTTng provider (a dynamic library) lets an LTTng session see the demo too.
swift build --product TransduceLTTngProvider >/dev/null
exec swift run trace-view demo "$@"
