#!/usr/bin/env bash
# Sinew next to three.js r187 (issue 41, "Looks right next to three.js"): the same scenes drawn
# by Sinew (`"shading": "standard"`, headless on Mesa llvmpipe) and by three.js r187's
# MeshStandardMaterial (headless Chromium, WebGL on SwiftShader), with the same size, camera,
# lights, background, no tone mapping and sRGB output, compared per scene: SSIM and mean absolute
# colour difference inside the silhouettes, and the silhouettes' overlap (IoU). Not part of
# scripts/test.sh: it needs Chromium, node and npm. Conventions and figures:
# docs/three-comparison.md.
#   scripts/compare-three.sh                        # OUT=target/compare-three
#   SINEW_BIN=/tmp/sinew-old scripts/compare-three.sh   # another build (default target/release/sinew)
#   CHROMIUM=/path/to/chrome scripts/compare-three.sh   # default /usr/bin/chromium
#   COMPARE_DIR=target/cmp scripts/compare-three.sh     # another output folder
#   THREE_COMPARE_EMULATE="fresnel ms_comp" scripts/compare-three.sh
#       # diagnosis: three.js with those terms of its shader replaced by Sinew's (see
#       # scripts/peer/three_compare.html); not r187 as released, never for the main table
#   scripts/compare-three.sh --diagnose             # OUT, then OUT-emulate-TERM per term and
#       # OUT-emulate-all: how much of each scene's difference each term of the shader makes
# Writes OUT/sinew/NAME.png, OUT/three/NAME.png, OUT/side/NAME.png (Sinew | three.js |
# difference x 4), OUT/all.png, OUT/results.json and OUT/results.md (the table, also printed).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${COMPARE_DIR:-target/compare-three}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM

missing=0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "compare-three: node and npm are needed (three.js runs in Chromium driven by playwright-core):" >&2
  echo "  apt-get install -y nodejs npm" >&2
  missing=1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "compare-three: Chromium is missing at $CHROMIUM: apt-get install -y chromium," >&2
  echo "  or set CHROMIUM=/path/to/chromium (any Chromium or Chrome playwright-core can drive)" >&2
  missing=1
fi
if ! python3 -c 'import numpy, PIL' 2>/dev/null; then
  echo "compare-three: python3 with numpy and Pillow is needed: pip install numpy pillow" >&2
  echo "  (or apt-get install -y python3-numpy python3-pil)" >&2
  missing=1
fi
[ "$missing" = 0 ] || exit 1

BIN=${SINEW_BIN:-target/release/sinew}
if [ ! -x "$BIN" ]; then
  if [ -n "${SINEW_BIN:-}" ]; then
    echo "compare-three: SINEW_BIN=$SINEW_BIN is not an executable" >&2
    exit 1
  fi
  echo "compare-three: building $BIN" >&2
  cargo build --release --quiet --bin sinew
fi

# The peer's packages (three 0.187.0, playwright-core) are installed from scripts/peer's lock
# file into target/peer, as scripts/bench.sh does; npm ci only runs when what is installed is
# not what is locked (it wipes node_modules).
PEER=target/peer
mkdir -p "$PEER"
cp scripts/peer/package.json scripts/peer/package-lock.json scripts/peer/three_compare.mjs \
  scripts/peer/three_compare.html "$PEER/"
locked() { node -p "require('./$PEER/package-lock.json').packages['node_modules/$1'].version"; }
installed() { node -p "require('./$PEER/node_modules/$1/package.json').version" 2>/dev/null || true; }
if [ "$(locked three)" != "$(installed three)" ] || [ "$(locked playwright-core)" != "$(installed playwright-core)" ]; then
  (cd "$PEER" && npm ci --silent --no-audit --no-fund) || {
    echo "compare-three: npm ci in $PEER failed (three and playwright-core come from the npm registry)" >&2
    exit 1
  }
fi

# One comparison into $1, with three.js emulating the terms in $2 (none: r187 as released).
compare() {
  local OUT=$1
  export THREE_COMPARE_EMULATE=$2
  rm -rf "$OUT"
  mkdir -p "$OUT/sinew"
  python3 scripts/peer/three_compare.py scenes "$OUT" || return 1
  # three.js first: it frames every scene from its bounds and writes the cameras Sinew then uses.
  node "$PEER/three_compare.mjs" "$OUT" || return 1
  python3 scripts/peer/three_compare.py sinew "$OUT" || return 1
  SIZE=$(node -p "require('./$OUT/scenes.json').size") || return 1
  for dir in "$OUT"/sinew-projects/*/; do
    name=$(basename "$dir")
    # Three frames: the picture of the last; no clip plays, so every frame shows the rest pose.
    if ! "$BIN" run "$dir" --headless --frames 3 --fixed-dt 0.0166667 --size "${SIZE}x${SIZE}" --no-watch \
      --screenshot "$OUT/sinew/$name.png" >"$OUT/sinew/$name.log" 2>&1; then
      echo "compare-three: sinew failed on $name:" >&2
      cat "$OUT/sinew/$name.log" >&2
      exit 1
    fi
  done
  {
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "sinew: $("$BIN" --version) ($BIN, built $(date -u -r "$BIN" '+%Y-%m-%d %H:%M UTC')); harness at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "sinew GL: Mesa llvmpipe through SDL's offscreen driver (Mesa $(dpkg-query -W -f='${Version}' libgl1-mesa-dri 2>/dev/null || echo '?'))"
    node -p "const c = require('./$OUT/cameras.json'); 'three.js r' + c.three_revision + ', Chromium ' + c.chromium + ', WebGL: ' + c.webgl + (c.emulate.length ? ', EMULATING SINEW: ' + c.emulate.join(' ') : '')"
    echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  } >"$OUT/machine.txt"
  cat "$OUT/machine.txt"
  echo
  python3 scripts/peer/three_compare.py compare "$OUT" || return 1
  echo
}

if [ "${1:-}" = "--diagnose" ]; then
  # Which of Sinew's shading terms makes which difference: the comparison once as released and
  # once per term with three.js's term replaced by Sinew's, then all five together; the table
  # gives SSIM / mean abs diff per scene and run.
  terms="fresnel ms_comp ambient roughness visibility"
  compare "$OUT" "" >"$OUT.log" 2>&1 || { cat "$OUT.log" >&2; exit 1; }
  dirs=()
  for t in $terms all; do
    emu=$t
    [ "$t" = all ] && emu=$terms
    compare "$OUT-emulate-$t" "$emu" >"$OUT-emulate-$t.log" 2>&1 || { cat "$OUT-emulate-$t.log" >&2; exit 1; }
    dirs+=("$OUT-emulate-$t")
  done
  cat "$OUT/machine.txt"
  echo
  python3 scripts/peer/three_compare.py attribution "$OUT" "${dirs[@]}"
  exit 0
fi
compare "$OUT" "${THREE_COMPARE_EMULATE:-}"
echo
echo "pictures: $OUT/side/*.png (Sinew | three.js | difference x 4), $OUT/all.png"
