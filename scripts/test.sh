#!/usr/bin/env bash
# The whole test command: set-up, formatting, lints, and every test (unit, Lua API projects,
# headless golden images). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings
# A fresh CI checkout gains nothing from incremental caches, and they double the disk used.
export CARGO_INCREMENTAL=0
cargo test --all-targets 2>&1
