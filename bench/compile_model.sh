#!/usr/bin/env bash
# Times `gstackc check model` and `gstackc compile model` as whole processes (what a user waits for).
#   bench/compile_model.sh BUILD_DIR [RUNS]
# Prints the median wall time of each over RUNS runs (default 20), using hyperfine when it is installed
# and a plain timing loop otherwise, and relates it to the 1 s budget of ARCHITECTURE.md section 9.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
gstackc=$build/bin/gstackc
[ -x "$gstackc" ] || { echo "compile_model: $gstackc not built" >&2; exit 2; }
model=$root/model
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Median in milliseconds of RUNS executions of the command.
median_ms() {
  if command -v hyperfine >/dev/null 2>&1; then
    hyperfine --style none --warmup 2 --runs "$runs" --export-json "$tmp/h.json" "$*" >/dev/null
    python3 -c "import json,sys; print('%.1f' % (json.load(open(sys.argv[1]))['results'][0]['median'] * 1000))" "$tmp/h.json"
    return
  fi
  "$@" >/dev/null 2>&1 || true  # warm the page cache
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f\n", m / 1000 }'
}

"$gstackc" check "$model" 2>"$tmp/summary" || { cat "$tmp/summary" >&2; exit 1; }
files=$(ls "$model"/*.gstack | wc -l)
lines=$(cat "$model"/*.gstack | wc -l)
check=$(median_ms "$gstackc" check "$model")
compile=$(median_ms "$gstackc" compile "$model" -o "$tmp/model.gsimg")
units_only=$(median_ms "$gstackc" check "$model/00_units.gstack")
echo "compile_model: $files files, $lines lines; $(sed 's/^gstackc: //' "$tmp/summary"); median of $runs runs"
awk -v c="$check" -v p="$compile" -v u="$units_only" 'BEGIN {
  printf "  gstackc check model        %8.1f ms   %.3f of the 1 s budget\n", c, c / 1000
  printf "  gstackc compile model      %8.1f ms   %.3f of the 1 s budget; %.2fx check\n", p, p / 1000, p / c
  printf "  baseline: check 00_units   %8.1f ms   (process start and the units prelude alone)\n", u
}'
