#!/usr/bin/env bash
# Evaluation tiers (issue 14): the reference interpreter against the JIT, measured in the same run.
#   1. In process (build/bin/bench_plan tiers): for each headline's interval cone, build time and time
#      per row of both evaluators and the batch size from which the JIT pays (kJitCrossoverRows).
#   2. In process (build/bin/bench_plan rqmc): resolve's randomized-QMC interval at 512-8192 samples
#      against 10^6 plain Monte Carlo draws in the same run: each percentile's error and the standard
#      error the interval states.
#   3. Per process: `resolve HEADLINE --preset default` (with its 90% interval from 4096 randomized-QMC
#      samples) under `--evaluator auto` (the interpreter) against `--evaluator jit` (LLVM load, one
#      compile, the same rows as machine code): median wall, mean CPU, peak memory and the ratio.
#      Goal (issue 14): under 25 ms per process.
#   4. `validate` over every published row, auto (one interpreted plan per row) against jit (one compile
#      per row). Goal (issue 14): under 0.3 s.
# Checks that both evaluators print the same interval (to 1e-12) before timing anything.
#   bench/plan_tiers.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
gpu_stack=$build/bin/gpu-stack
image=$build/model.gsimg
bench_plan=$build/bin/bench_plan
for f in "$gpu_stack" "$bench_plan"; do [ -x "$f" ] || { echo "plan_tiers: $f not built (cmake --build BUILD --target benchmarks)" >&2; exit 2; }; done
[ -f "$image" ] || { echo "plan_tiers: $image not built" >&2; exit 2; }
export GSTACK_PRESETS=$root/presets

"$bench_plan" tiers "$image" "$root/presets"
"$bench_plan" rqmc "$image" "$root/presets"

python3 - "$runs" "$gpu_stack" "$image" "$root/bench" <<'PY'
import json, os, subprocess, sys

runs, gpu_stack, image = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.path.insert(0, sys.argv[4])
from process_timer import measure


def peak_mib(argv, ok_codes=(0,)):
    """Peak resident memory of one run of argv, from the kernel's accounting of that child alone."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) not in ok_codes:
        sys.exit(f"{' '.join(argv)} failed")
    return usage.ru_maxrss / 1024


headlines = ["econ.cost.per_token", "training.tokens_per_sec", "training.mfu", "econ.job.dc_power", "training.wallclock",
             "training.energy_per_token"]
print(f"plan_tiers: per-process resolve with the interval under the default preset; {runs} runs; "
      f"load average {os.getloadavg()[0]:.2f}")
print(f"  {'target':28} {'evaluator':>11} {'wall ms':>9} {'CPU ms':>8} {'peak MiB':>9} {'CPU ratio':>10}")
worst = 0.0
for target in headlines:
    argv = [gpu_stack, "resolve", target, "--preset", "default", "--image", image, "--json"]
    answers = {ev: json.loads(subprocess.run(argv + ["--evaluator", ev], capture_output=True, text=True, check=True).stdout)
               for ev in ("auto", "jit")}
    ia, ij = answers["auto"].get("interval"), answers["jit"].get("interval")
    if (ia is None) != (ij is None) or (ia and any(abs(ia[k] / ij[k] - 1) > 1e-12 for k in ("p5", "median", "p95"))):
        sys.exit(f"plan_tiers: {target}: the evaluators disagree: {ia} vs {ij}")
    row = {}
    for ev in ("jit", "auto"):
        wall, cpu = measure(argv + ["--evaluator", ev], runs, warmup=1)
        row[ev] = (wall * 1e3, cpu * 1e3, peak_mib(argv + ["--evaluator", ev]))
    for ev in ("jit", "auto"):
        wall, cpu, mib = row[ev]
        ratio = "baseline" if ev == "jit" else f"{row['jit'][1] / cpu:.2f}x less"
        print(f"  {target:28} {ev:>11} {wall:9.2f} {cpu:8.2f} {mib:9.1f} {ratio:>10}")
    worst = max(worst, row["auto"][1])
print(f"  slowest headline (auto): {worst:.2f} ms CPU; goal 25 ms")

for label, extra in (("validate --no-search", ["--no-search"]), ("validate (with the search over unstated settings)", [])):
    validate = [gpu_stack, "validate", "--image", image] + extra
    print(f"plan_tiers: {label} over every published row")
    base = None
    for ev in ("jit", "auto"):
        wall, cpu = measure(validate + ["--evaluator", ev], max(3, runs // 3), warmup=1, ok_codes=(0, 1))
        mib = peak_mib(validate + ["--evaluator", ev], ok_codes=(0, 1))
        base = base or cpu
        print(f"  {ev:>11} {wall * 1e3:9.1f} ms wall {cpu * 1e3:9.1f} ms CPU {mib:7.1f} MiB  {base / cpu:.2f}x the jit path's speed")
print("  goal: under 300 ms")
PY
