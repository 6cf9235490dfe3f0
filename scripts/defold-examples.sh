#!/usr/bin/env bash
# Runs every example of Defold's examples repository (github.com/defold/examples, checked out
# at $1) from its own folder, headless, for 120 frames, and prints one line per example:
# ok / error / crash, and the first error it reported. The figure "N of 133 run without an
# error" in the README comes from here. Needs a built binary (cargo build --release).
#   scripts/defold-examples.sh /path/to/defold-examples [sinew binary]
set -uo pipefail
root=${1:?usage: scripts/defold-examples.sh EXAMPLES_DIR [SINEW]}
sinew=${2:-$(dirname "$0")/../target/release/sinew}
ok=0; bad=0
while IFS= read -r project; do
  dir=$(dirname "$project")
  name=${dir#"$root"/}
  out=$(timeout 60 "$sinew" run "$dir" --headless --no-watch --frames 120 --fixed-dt 0.016666668 --size 320x240 2>&1)
  status=$?
  first=$(grep -m1 -E "^(ERROR|error)" <<<"$out" | cut -c1-160)
  if [ $status -eq 0 ] && [ -z "$first" ]; then
    ok=$((ok + 1)); echo "ok     $name"
  elif [ $status -gt 128 ] || [ $status -eq 124 ]; then
    bad=$((bad + 1)); echo "crash  $name (status $status) ${first}"
  else
    bad=$((bad + 1)); echo "error  $name ${first:-status $status: $(tail -n1 <<<"$out" | cut -c1-160)}"
  fi
done < <(find "$root" -name game.project | sort)
echo "$ok of $((ok + bad)) examples run 120 frames without an error"
