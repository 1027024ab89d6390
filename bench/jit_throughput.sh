#!/usr/bin/env bash
# JIT against the GiNaC evaluator on the cost-per-token cone of the default scenario, in one run:
# evaluations per second of each engine and their ratio, JIT compile latency, thread scaling, and the
# time of a one-million-sample uncertainty run. Aims (ARCHITECTURE.md section 9, issue 6): at least
# 1e7 evaluations/s per core, at least 1000x GiNaC, under 1 s for 1e6 Monte Carlo samples on 2 cores.
#   bench/jit_throughput.sh BUILD_DIR
set -euo pipefail
gs="${1:?usage: $0 BUILD_DIR}/bin/gpu-stack"
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }
# Two sweeps of the same cone: tariff x cluster utilization (economics inputs: most of the cone folds to
# constants) and tariff x data-parallel degree (a deep input that reaches memory, communication and
# the pipeline, so most of the cone is evaluated at every point).
shallow=(--vary "econ.power.price_kwh_peak=0.02..0.4:2000" --vary "econ.cluster.utilization=0.5..1:2000")
deep=(--vary "econ.power.price_kwh_peak=0.02..0.4:2000" --vary "par.dp=16..2048:2000")
sweep() { "$gs" sweep econ.cost.per_token --preset default "$@" --json; }

jit1=$(sweep "${shallow[@]}" --threads 1)
jit2=$(sweep "${shallow[@]}" --threads 2)
deep1=$(sweep "${deep[@]}" --threads 1)
ginac=$(sweep --vary "econ.power.price_kwh_peak=0.02..0.4:20" --engine ginac)
r1=$(echo "$jit1" | field evaluations_per_second)
r2=$(echo "$jit2" | field evaluations_per_second)
rd=$(echo "$deep1" | field evaluations_per_second)
rg=$(echo "$ginac" | field evaluations_per_second)
compile=$(echo "$jit1" | field compile_ms)
start=$(date +%s%N)
"$gs" uncertainty econ.cost.per_token --preset default --samples 1000000 --json > /dev/null
mc_ms=$(( ($(date +%s%N) - start) / 1000000 ))

python3 - "$r1" "$r2" "$rd" "$rg" "$compile" "$mc_ms" <<'PY'
import sys
r1, r2, rd, rg, compile_ms, mc_ms = map(float, sys.argv[1:])
print(f"jit, 1 thread      {r1:14,.0f} evaluations/s  (tariff x utilization)")
print(f"jit, 2 threads     {r2:14,.0f} evaluations/s  (scaling {r2 / r1:.2f}x)")
print(f"jit, 1 thread      {rd:14,.0f} evaluations/s  (tariff x data-parallel degree: deep cone)")
print(f"ginac              {rg:14,.0f} evaluations/s")
print(f"jit / ginac        {r1 / rg:14,.0f}x  (aim >= 1000x)")
print(f"jit compile        {compile_ms:14.1f} ms     (aim < 50 ms)")
print(f"1e6-sample uncertainty run, whole process: {mc_ms:.0f} ms (aim < 1000 ms)")
ok = r1 >= 1e7 and r1 / rg >= 1000
print("throughput aim met" if ok else "throughput aim NOT met")
PY
