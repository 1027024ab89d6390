#!/usr/bin/env bash
# Preset parsing in `validate` (issue 14): the layered presets of every published run row, loaded
# through one library (parsed once per process) against a new library per row (every row re-parses its
# files: the baseline of this run), in one process (bench_presets); then the whole `gpu-stack validate`
# process, whose CPU time the cache cuts (issue 14's goal: validate under 0.3 s).
#   bench/preset_cache.sh BUILD_DIR [ROUNDS] [RUNS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [ROUNDS] [RUNS]}
rounds=${2:-5}
runs=${3:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/bin/bench_presets
[ -x "$bench" ] || { echo "preset_cache: $bench not built (cmake --build BUILD --target benchmarks)" >&2; exit 2; }
export GSTACK_PRESETS=$root/presets

python3 - "$bench" "$build" "$root" "$rounds" "$runs" <<'PY'
import os, subprocess, sys

bench, build, root, rounds, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
sys.path.insert(0, os.path.join(root, "bench"))
from process_timer import measure

out = subprocess.run([bench, os.path.join(build, "model.gsimg"), os.path.join(root, "presets"), os.path.join(root, "data"), rounds],
                     check=True, stdout=subprocess.PIPE, text=True).stdout
res = {f[0]: (int(f[1]), int(f[2]), float(f[3])) for f in (line.split() for line in out.splitlines())}
print(f"preset_cache: {res['shared'][0]} run rows, best of {rounds} passes; load average {os.getloadavg()[0]:.2f}")
print(f"  {'library':>16} {'files parsed':>13} {'seconds':>9}")
for name, label in (("fresh", "new per row"), ("shared", "one (validate)")):
    rows, parsed, secs = res[name]
    print(f"  {label:>16} {parsed:13d} {secs:9.4f}")
print(f"  shared library: {res['fresh'][2] / res['shared'][2]:.1f}x faster than a new library per row")

gpu_stack = os.path.join(build, "bin", "gpu-stack")
image = os.path.join(build, "model.gsimg")
wall, cpu = measure([gpu_stack, "validate", "--image", image], runs, warmup=1, ok_codes=(0, 1))
base_wall, base_cpu = measure([gpu_stack, "stats", "--image", image], runs, warmup=1)
print(f"  gpu-stack validate: {wall:.3f} s median wall, {cpu:.3f} s mean CPU ({cpu / base_cpu:.1f}x `stats`, {base_cpu:.3f} s CPU)")
PY
