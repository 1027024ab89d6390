#!/usr/bin/env bash
# Monte Carlo summaries (issue 14): the summary of econ.cost.per_token under the default preset's
# uncertain inputs at 1e7, 3e7 and 1e8 samples by three methods, each in its own process so that its
# peak memory is its own:
#   sort    the former summary: every sample held, then fully sorted (the baseline of this run);
#   select  every sample held, order statistics by nth_element (gpu-stack's summary below 1e7);
#   stream  no sample array: one pass, a held pilot placing brackets around the percentiles (from 1e7,
#           or --streaming; docs/runtime.md "Monte Carlo summaries").
# All three must give the same percentiles (exactly). Prints time, peak memory, the ratio to sort and
# each method's scaling exponent (slope of log time against log samples). Goal (issue 14): 1e8 samples
# in under 10 s with no sample array, exponent at most 1.1.
#   bench/mc_summary.sh BUILD_DIR [SIZES...]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SIZES...]}
shift
sizes=${*:-10000000 30000000 100000000}
root=$(cd "$(dirname "$0")/.." && pwd)
bench_plan=$build/bin/bench_plan
[ -x "$bench_plan" ] || { echo "mc_summary: $bench_plan not built (cmake --build BUILD --target benchmarks)" >&2; exit 2; }

python3 - "$bench_plan" "$build/model.gsimg" "$root/presets" $sizes <<'PY'
import math, os, subprocess, sys

bench_plan, image, presets = sys.argv[1:4]
sizes = [int(x) for x in sys.argv[4:]]
methods = ("sort", "select", "stream")


def run(n, method):
    p = subprocess.Popen([bench_plan, "mc", image, presets, str(n), method], stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"mc_summary: {method} at {n} failed")
    fields = out.split()
    return float(fields[2]), usage.ru_maxrss / 1024, tuple(float(x) for x in fields[3:6])


print(f"mc_summary: econ.cost.per_token, default preset, JIT, {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
print(f"  {'samples':>11} {'method':>7} {'seconds':>9} {'peak MiB':>9} {'time vs sort':>13} {'memory vs sort':>15}")
times = {m: [] for m in methods}
status = 0
for n in sizes:
    res = {m: run(n, m) for m in methods}
    for m in methods:
        t, mib, q = res[m]
        times[m].append(t)
        if q != res["sort"][2]:
            print(f"  {n}: {m} percentiles {q} differ from sort's {res['sort'][2]}")
            status = 1
        print(f"  {n:11d} {m:>7} {t:9.2f} {mib:9.1f} {res['sort'][0] / t:12.2f}x {res['sort'][1] / mib:14.1f}x")
if len(sizes) > 1:
    for m in methods:
        xs, ys = [math.log(n) for n in sizes], [math.log(t) for t in times[m]]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"  scaling exponent of {m}: {slope:.2f} over {sizes[0]:.0e}..{sizes[-1]:.0e}")
sys.exit(status)
PY
