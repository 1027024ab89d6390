#!/usr/bin/env bash
# Times the analysis commands as whole processes on the shipped model: `root-debt` (blast radius of
# every root), `root-debt --preset dense_training_cost_fixture --target econ.cost.per_token` (GiNaC
# elasticities along the cone), `verify --profile fast` and `verify --profile full` (which compiles every
# value relation with the JIT and checks it against GiNaC). Budgets (issue 5): root-debt and verify
# full under 2 s each, verify fast under 1 s. As a baseline measured in the same run it times
# `gpu-stack stats` (start-up, image load and whole-graph statistics), and prints each command's ratio
# to it.
#   bench/analysis_latency.sh BUILD_DIR [RUNS]
# Prints the median wall time and the mean CPU time (user + system) over RUNS runs (default 10); the CPU
# time is the figure to trust on a busy machine. Uses hyperfine for the wall time when installed. Exits 1
# when a command exceeds its budget in wall time and in CPU time.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
gpu_stack=$build/bin/gpu-stack
image=$build/model.gsimg
[ -x "$gpu_stack" ] || { echo "analysis_latency: $gpu_stack not built" >&2; exit 2; }
[ -f "$image" ] || { echo "analysis_latency: $image not built" >&2; exit 2; }
export GSTACK_PRESETS=$root/presets

python3 - "$runs" "$gpu_stack" "$image" "$root/bench" <<'PY'
import os, sys

runs, gpu_stack, image = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.path.insert(0, sys.argv[4])
from process_timer import measure
fixture = ["--preset", "dense_training_cost_fixture", "--target", "econ.cost.per_token"]
# name -> (argv, budget in seconds or None for the baseline)
commands = {
    "root-debt": ([gpu_stack, "root-debt", "--image", image], 2.0),
    "root-debt --families": ([gpu_stack, "root-debt", "--families", "--include-constraints", "--image", image], 2.0),
    "root-debt --target (fixture)": ([gpu_stack, "root-debt", *fixture, "--image", image], 2.0),
    "verify --profile fast": ([gpu_stack, "verify", "--profile", "fast", "--image", image], 1.0),
    "verify --profile full": ([gpu_stack, "verify", "--profile", "full", "--image", image], 2.0),
    "baseline: stats": ([gpu_stack, "stats", "--image", image], None),
}

# verify exits 1 when it finds something (e.g. a preset another change broke); only 2 is an error here.
results = {name: measure(argv, runs, warmup=2, ok_codes=(0, 1)) for name, (argv, _) in commands.items()}
base_wall, base_cpu = results["baseline: stats"]
print(f"analysis_latency: {os.path.getsize(image)} byte image; {runs} runs; load average {os.getloadavg()[0]:.2f}")
print(f"  {'':30} {'median wall':>12} {'mean CPU':>10} {'budget':>8} {'x stats (CPU)':>14}")
over = []
for name, (argv, budget) in commands.items():
    wall, cpu = results[name]
    shown = f"{budget:.0f} s" if budget else "-"
    print(f"  {name:30} {wall * 1000:9.1f} ms {cpu * 1000:7.1f} ms {shown:>8} {cpu / base_cpu if base_cpu else float('nan'):13.1f}x")
    if budget and wall > budget and cpu > budget:
        over.append(name)
if over:
    print("analysis_latency: over budget: " + ", ".join(over), file=sys.stderr)
sys.exit(1 if over else 0)
PY
