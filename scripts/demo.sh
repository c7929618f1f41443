#!/usr/bin/env bash
# The main job: builds and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh demo
exec swift run trace-view demo "$@"
