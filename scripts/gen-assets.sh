#!/usr/bin/env bash
# Regenerates the demo's models and sounds from Sinew's own generators (content/models/*.glb,
# mannequin.*, content/sounds/*.wav).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet --example gen_assets
