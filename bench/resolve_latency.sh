#!/usr/bin/env bash
# Times `gpu-stack resolve econ.cost.per_token --preset dense_training_cost_fixture` as a whole process:
# start-up, image load, preset load, resolution and printing, which is what a user waits for. The
# budget is 20 ms (ARCHITECTURE.md section 9). As a baseline measured in the same run it also times
# `gpu-stack --help` (process start and library initialisation alone) and `gpu-stack stats` (plus the
# image load and whole-graph statistics).
#   bench/resolve_latency.sh BUILD_DIR [RUNS]
# Prints the median wall time and the mean CPU time (user + system) over RUNS runs (default 50); the
# CPU time is the figure to trust on a busy machine. Uses hyperfine for the wall time when installed.
# Exits 1 when the resolve takes more than 20 ms of wall time and of CPU time.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-50}
root=$(cd "$(dirname "$0")/.." && pwd)
gpu_stack=$build/bin/gpu-stack
image=$build/model.gsimg
[ -x "$gpu_stack" ] || { echo "resolve_latency: $gpu_stack not built" >&2; exit 2; }
[ -f "$image" ] || { echo "resolve_latency: $image not built" >&2; exit 2; }
export GSTACK_PRESETS=$root/presets

out=$("$gpu_stack" resolve econ.cost.per_token --preset dense_training_cost_fixture --image "$image")
grep -q "econ.cost.per_token = 3.000078e-06 USD/token" <<<"$out" || { echo "resolve_latency: wrong answer:" >&2; echo "$out" >&2; exit 1; }

python3 - "$runs" "$gpu_stack" "$image" "$root/bench" <<'PY'
import os, sys

runs, gpu_stack, image = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.path.insert(0, sys.argv[4])
from process_timer import measure

commands = {
    "resolve econ.cost.per_token": [gpu_stack, "resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--image", image],
    "baseline: stats": [gpu_stack, "stats", "--image", image],
    "baseline: --help": [gpu_stack, "--help"],
}

results = {name: tuple(t * 1000 for t in measure(argv, runs, warmup=3)) for name, argv in commands.items()}
print(f"resolve_latency: {os.path.getsize(image)} byte image; {runs} runs; load average {os.getloadavg()[0]:.2f}")
print(f"  {'':30} {'median wall':>12} {'mean CPU':>10}")
for name, (wall, cpu) in results.items():
    print(f"  {name:30} {wall:9.2f} ms {cpu:7.2f} ms")
wall, cpu = results["resolve econ.cost.per_token"]
print(f"  resolve: {wall / 20:.2f} (wall) and {cpu / 20:.2f} (CPU) of the 20 ms budget; "
      f"{cpu / results['baseline: --help'][1]:.2f}x the CPU time of start-up alone")
sys.exit(1 if wall > 20 and cpu > 20 else 0)
PY
