#!/usr/bin/env bash
# Monte Carlo draws per second (issue 14: 10^8 samples in under 10 s on 2 cores, no sample array).
# The streaming summary of econ.cost.per_token under the default preset's uncertain inputs at 10^6, 10^7
# and 10^8 draws (other sizes as arguments), each in its own process, on all cores, by two fills:
#   perdraw  the former fill: one Distribution::sample call per input and row (the baseline of this run);
#   batched  fill_draws: a chunk's uniforms in one loop, each input's column through its inverse CDF in a
#            vectorized loop (docs/runtime.md "Monte Carlo summaries").
# Both draw the same inputs, so the percentiles must be identical. Prints wall and CPU seconds, draws/s,
# CPU ns per draw, the ratio to the baseline at each size, the scaling exponent of each (slope of log time
# against log draws) and, on one thread, where a draw's time goes (bench_plan draws). On a loaded machine
# the wall time is not the idle machine's: CPU seconds / cores estimates it.
#   bench/mc_draws.sh BUILD_DIR [SIZES...]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [SIZES...]}
shift
sizes=${*:-1000000 10000000 100000000}
root=$(cd "$(dirname "$0")/.." && pwd)
bench_plan=$build/bin/bench_plan
[ -x "$bench_plan" ] || { echo "mc_draws: $bench_plan not built (cmake --build BUILD --target benchmarks)" >&2; exit 2; }

python3 - "$bench_plan" "$build/model.gsimg" "$root/presets" $sizes <<'PY'
import math, os, subprocess, sys

bench_plan, image, presets = sys.argv[1:4]
sizes = [int(x) for x in sys.argv[4:]]
methods = {"perdraw": "stream-perdraw", "batched": "stream"}


def run(n, method):
    out = subprocess.run([bench_plan, "mc", image, presets, str(n), methods[method]], stdout=subprocess.PIPE, text=True, check=True).stdout
    f = out.split()
    return float(f[2]), float(f[6]), tuple(float(x) for x in f[3:6])


def slope(xs, ys):
    xs, ys = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


cores = os.cpu_count()
print(f"mc_draws: econ.cost.per_token, default preset, streaming summary, JIT, {cores} cores; load average {os.getloadavg()[0]:.2f}")
print(f"  {'draws':>11} {'fill':>8} {'wall s':>8} {'CPU s':>8} {'draws/s':>10} {'CPU ns/draw':>12} {'wall vs perdraw':>16} {'CPU vs perdraw':>15}")
wall = {m: [] for m in methods}
cpu = {m: [] for m in methods}
status = 0
for i, n in enumerate(sizes):
    order = list(methods) if i % 2 == 0 else list(reversed(methods))  # alternate, so drifting load hits both
    res = {m: run(n, m) for m in order}
    for m in methods:
        w, c, q = res[m]
        wall[m].append(w), cpu[m].append(c)
        if q != res["perdraw"][2]:
            print(f"  {n}: {m} percentiles {q} differ from perdraw's {res['perdraw'][2]}")
            status = 1
        print(f"  {n:11d} {m:>8} {w:8.2f} {c:8.2f} {n / w:10.3g} {c / n * 1e9:12.1f} {res['perdraw'][0] / w:15.2f}x {res['perdraw'][1] / c:14.2f}x")
if len(sizes) > 1:
    for m in methods:
        print(f"  scaling exponent of {m}: wall {slope(sizes, wall[m]):.2f}, CPU {slope(sizes, cpu[m]):.2f} over {sizes[0]:.0e}..{sizes[-1]:.0e}")
n, c = sizes[-1], cpu["batched"][-1]
print(f"  batched at {n:.0e}: {c:.2f} CPU s, so about {c / cores:.2f} s on {cores} idle cores (goal at 1e8: under 10 s on 2 cores)")
sys.stdout.flush()
status |= subprocess.run([bench_plan, "draws", image, presets]).returncode
sys.exit(status)
PY
