#!/usr/bin/env bash
# `gpu-stack plan` for Llama 3 405B on the 16,384-H100 cluster preset, in one run: whole-process time
# (aim: under 2 s on 2 cores), candidates enumerated and evaluated per second through the JIT cone (aim:
# at least 1e6 evaluated per second), and the ratio to the exact GiNaC resolver evaluating the same
# objective for a subset of the same layouts (12 points: recompute mode x ZeRO stage) in the same run.
# Also `plan --serving` for Llama 3 70B on 8 H100s under TTFT <= 200 ms and TPOT <= 50 ms (aim: under 2 s).
#   bench/plan_search.sh BUILD_DIR
set -euo pipefail
gs="${1:?usage: $0 BUILD_DIR}/bin/gpu-stack"
start=$(date +%s%N)
plan=$("$gs" plan --workload llama3-405b --preset h100_16k --top 10 --json)
plan_ms=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
serving=$("$gs" plan --serving --preset serving/llama3_70b_8xh100_tp8 --ttft-max 200ms --tpot-max 50ms --top 3 --json)
serving_ms=$(( ($(date +%s%N) - start) / 1000000 ))
ginac=$("$gs" sweep training.tokens_per_sec --preset h100_16k --preset workload/llama3_405b --engine ginac --json \
  --variant par.act.recompute_fraction=mode --variant arch.act.values_per_token_dim=mode \
  --variant arch.act.values_per_score=mode --vary par.act.recompute_mode=0,1,2 --vary par.zero.stage=0,1,2,3)
python3 - "$plan" "$ginac" "$plan_ms" "$serving" "$serving_ms" <<'PY'
import json, sys
plan, ginac, plan_ms = json.loads(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
serving, serving_ms = json.loads(sys.argv[4]), float(sys.argv[5])
evaluated_rate = plan["evaluated"] / max(plan["evaluate_seconds"], 1e-12)
ginac_rate = ginac["evaluations_per_second"]
print(f"plan, whole process          {plan_ms:14.0f} ms  (aim < 2000 ms)")
print(f"candidates enumerated        {plan['enumerated']:14,d}  ({plan['enumerated'] / plan['seconds']:,.0f}/s over the whole search)")
print(f"candidates evaluated (JIT)   {plan['evaluated']:14,d}  ({evaluated_rate:,.0f}/s, aim >= 1e6/s)")
print(f"cone compile                 {plan['compile_ms']:14.0f} ms")
print(f"ginac resolver, same target  {ginac_rate:14,.1f} evaluations/s")
print(f"jit / ginac                  {evaluated_rate / ginac_rate:14,.0f}x")
print(f"plan --serving, whole process {serving_ms:13.0f} ms  (aim < 2000 ms; search {serving['seconds'] * 1000:.0f} ms)")
sys.exit(0 if plan_ms < 2000 and evaluated_rate >= 1e6 and serving_ms < 2000 and serving["ranked"] else 1)
PY
