#!/usr/bin/env bash
# Times `gpu-stack resolve` as a whole process: start-up, image load, preset load, resolution, the 90%
# interval and printing, which is what a user waits for. Issue 14's goal: each headline under the
# default preset, with its interval, under 25 ms of CPU per process; the fixture without an interval
# (`econ.cost.per_token --preset dense_training_cost_fixture`) is timed too. Baselines measured in the
# same run: `gpu-stack --help` (process start and library loading alone) and `gpu-stack stats` (plus the
# image load and whole-graph statistics).
#   bench/resolve_latency.sh BUILD_DIR [RUNS] [OTHER_BUILD_DIR]
# With OTHER_BUILD_DIR (say, a build of main), every command is timed with both builds in the same run
# and the ratio printed: the before/after of a change on a busy machine.
# Prints the median wall time and the mean CPU time (user + system) over RUNS runs (default 30); the
# CPU time is the figure to trust on a busy machine. Uses hyperfine for the wall time when installed.
# Exits 1 when a headline's resolve takes more than 25 ms of wall time and of CPU time.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS] [OTHER_BUILD_DIR]}
runs=${2:-30}
other=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
for b in "$build" $other; do
  [ -x "$b/bin/gpu-stack" ] || { echo "resolve_latency: $b/bin/gpu-stack not built" >&2; exit 2; }
  [ -f "$b/model.gsimg" ] || { echo "resolve_latency: $b/model.gsimg not built" >&2; exit 2; }
done
export GSTACK_PRESETS=$root/presets

python3 - "$runs" "$root/bench" "$build" $other <<'PY'
import json, os, subprocess, sys

runs, bench, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
sys.path.insert(0, bench)
from process_timer import measure

headlines = ["econ.cost.per_token", "training.tokens_per_sec", "training.mfu", "econ.job.dc_power", "training.wallclock",
             "training.energy_per_token"]


def commands(build):
    gs, image = os.path.join(build, "bin", "gpu-stack"), os.path.join(build, "model.gsimg")
    out = {f"resolve {h} (default)": [gs, "resolve", h, "--preset", "default", "--image", image] for h in headlines}
    out["resolve fixture"] = [gs, "resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--image", image]
    out["baseline: stats"] = [gs, "stats", "--image", image]
    out["baseline: --help"] = [gs, "--help"]
    return out


for build in builds:
    argv = commands(build)["resolve fixture"] + ["--json"]
    value = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)["value"]
    if abs(value / 3.000078e-06 - 1) > 1e-12:
        sys.exit(f"resolve_latency: {build}: wrong answer {value} for the fixture (3.000078e-06 USD/token)")

results = {b: {} for b in builds}
for name in commands(builds[0]):
    for b in builds:  # interleaved, so both builds see the same load
        results[b][name] = tuple(t * 1000 for t in measure(commands(b)[name], runs, warmup=2))
print(f"resolve_latency: {runs} runs; load average {os.getloadavg()[0]:.2f}")
print(f"  {'':46} {'median wall':>12} {'mean CPU':>10}" + (f" {'CPU vs other':>13}" if len(builds) > 1 else ""))
for name in results[builds[0]]:
    wall, cpu = results[builds[0]][name]
    line = f"  {name:46} {wall:9.2f} ms {cpu:7.2f} ms"
    if len(builds) > 1:
        owall, ocpu = results[builds[1]][name]
        line += f" {ocpu / cpu:12.2f}x   (other: {owall:.2f} ms wall, {ocpu:.2f} ms CPU)"
    print(line)
mine = results[builds[0]]
worst = max((mine[f"resolve {h} (default)"] for h in headlines), key=lambda t: t[1])
print(f"  slowest headline: {worst[0]:.2f} ms wall, {worst[1]:.2f} ms CPU (goal: 25 ms); "
      f"start-up alone (--help) {mine['baseline: --help'][1]:.2f} ms CPU")
sys.exit(1 if worst[0] > 25 and worst[1] > 25 else 0)
PY
