#!/usr/bin/env bash
# Regenerates the demo's models from Sinew's own glTF writer (content/models/*.glb).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet --example gen_assets
