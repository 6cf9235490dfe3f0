#!/usr/bin/env bash
# Runs the demo (content/, embedded: a generated humanoid you walk around a field collecting gems)
# or `scripts/demo.sh run PROJECT_DIR ...`: set-up, release build, run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec cargo run --release --quiet -- "$@"
