#!/usr/bin/env bash
# In-engine figures (issue 15's table): builds the perf projects of ../shared/perf, runs each
# through `sinew run --stats`, runs the plain-LuaJIT floors on the same built-in LuaJIT
# (`sinew luajit`), and prints each figure next to its floor from the same run, with the ratio
# and the target. Machines are shared and noisy: the script runs everything ROUNDS times,
# interleaved, and reports medians. The kernel benchmarks are `cargo bench` (benches/).
#   scripts/bench.sh            # FRAMES=300 ROUNDS=3
#   FRAMES=600 ROUNDS=5 scripts/bench.sh
#   SINEW_BIN=/tmp/sinew-old scripts/bench.sh   # the same table for another build
set -euo pipefail
cd "$(dirname "$0")/.."
PERF=../shared/perf
if [ ! -f "$PERF/make_projects.py" ]; then
  echo "bench: $PERF is absent: the perf projects and the plain-LuaJIT floors live there" >&2
  exit 1
fi
FRAMES=${FRAMES:-300}
ROUNDS=${ROUNDS:-3}
OUT=${BENCH_DIR:-target/perf-projects}
cargo build --release --quiet --bin sinew
# The floors always run on this build's LuaJIT; SINEW_BIN=path/to/another/sinew runs the
# projects on another build (an older commit) for a before/after table.
LJ=target/release/sinew
BIN=${SINEW_BIN:-$LJ}
python3 "$PERF/make_projects.py" "$OUT" >/dev/null
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT

for round in $(seq "$ROUNDS"); do
  for p in scripted_10000 tweens_65000 crowd_fox_100 crowd_fox_1000; do
    line=$("$BIN" run "$OUT/$p" --headless --frames "$FRAMES" --fixed-dt 0.0166667 --no-watch --stats \
      --size 64x64 2>&1 >/dev/null | grep '^{' | tail -1)
    echo "$p $line" >>"$RESULTS"
  done
  echo "floor_dispatch $("$LJ" luajit "$PERF/dispatch_baseline.lua" 10000 "$FRAMES")" >>"$RESULTS"
  echo "floor_tweens $("$LJ" luajit "$PERF/tween_baseline.lua" 65000 "$FRAMES")" >>"$RESULTS"
done

python3 - "$RESULTS" "$FRAMES" "$ROUNDS" <<'PY'
import json, re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, rest = line.split(" ", 1)
    rows.setdefault(name, []).append(rest.strip())

def phase(project, *phases):
    """Median over rounds of the sum of the phases' per-frame medians, in ms."""
    vals = []
    for r in rows.get(project, []):
        d = json.loads(r)
        vals.append(sum(d[p]["median_ms"] for p in phases))
    return statistics.median(vals)

def counter(project, key):
    d = json.loads(rows[project][-1])
    return d.get(key)

def floor(name):
    vals = [float(re.search(r"([0-9.]+) us/frame", r).group(1)) / 1000 for r in rows[name]]
    return statistics.median(vals)

scripts = phase("scripted_10000", "scripts")
disp = floor("floor_dispatch")
tweens = phase("tweens_65000", "tweens", "scripts")
tfloor = floor("floor_tweens")
fox100 = phase("crowd_fox_100", "animation", "transforms")
fox1000 = phase("crowd_fox_1000", "animation", "transforms")
THREE = (13.0, 24.0)  # three.js r187, 1,000 Foxes, CPU: issue 15's figure (not measurable here)

print(f"frames {sys.argv[2]}, rounds {sys.argv[3]}, medians of per-frame medians (ms)")
print("| work | Sinew in-engine (ms/frame) | floor / peer (ms/frame) | ratio | target |")
print("| --- | --- | --- | --- | --- |")
print(f"| scripted_10000: update reads and writes its position | scripts {scripts:.3f} "
      f"| plain LuaJIT over tables {disp:.3f} (same run) | {scripts / disp:.1f}x slower | <= 3x |")
print(f"| tweens_65000: go.animate on script properties | tweens + scripts {tweens:.3f} "
      f"| plain-LuaJIT tween loop {tfloor:.3f} (same run) | {tfloor / tweens:.1f}x faster | >= 5x |")
print(f"| crowd_fox_1000: 1,000 Foxes, three clips | animation + transforms {fox1000:.3f} "
      f"| three.js r187 {THREE[0]:.0f}-{THREE[1]:.0f} (issue 15, not this run) "
      f"| {THREE[0] / fox1000:.0f}-{THREE[1] / fox1000:.0f}x | >= 30x |")
print(f"| crowd_fox_100 | animation + transforms {fox100:.3f} | | | |")
for p in ("crowd_fox_100", "crowd_fox_1000"):
    extra = {k: counter(p, k) for k in ("draw_calls", "triangles", "skinned_instances") if counter(p, k) is not None}
    if extra:
        print(f"{p}: " + ", ".join(f"{k} {v}" for k, v in extra.items()))
PY
