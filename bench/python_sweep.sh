#!/usr/bin/env bash
# A one-million-point sweep of the cost per token through the Python module (NumPy arrays back) against
# the same sweep through the CLI, in one run. Aim (issue 18): Python at the JIT's speed, i.e. its
# evaluation rate within a few percent of the CLI's and its whole call no slower than the CLI process.
#   bench/python_sweep.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR}"
gs="$build/bin/gpu-stack"
py=$(sed -n 's/^GSTACK_PYTHON_EXECUTABLE:FILEPATH=//p' "$build/CMakeCache.txt")
[ -n "$py" ] && [ -f "$build/python/gpu_stack/__init__.py" ] || { echo "python_sweep: the Python module is not built (GSTACK_PYTHON)"; exit 0; }
spec="0.02..0.4:1000000"
threads="${GSTACK_BENCH_THREADS:-2}"

# Best of three for both sides: the machine may be busy, and the best run is the least disturbed one.
cli_ms=""
for _ in 1 2 3; do
  start=$(date +%s%N)
  run=$("$gs" sweep econ.cost.per_token --preset default --vary "econ.power.price_kwh_offpeak=$spec" --threads "$threads" --json)
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ -z "$cli_ms" ] || [ "$ms" -lt "$cli_ms" ]; then cli_ms=$ms cli=$run; fi
done

PYTHONPATH="$build/python" GSTACK_IMAGE="$build/model.gsimg" "$py" - "$spec" "$threads" "$cli_ms" "$cli" <<'PY'
import json, sys, time
spec, threads, cli_ms, cli = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4])
t0 = time.perf_counter()
import gpu_stack
model = gpu_stack.Model()
t1 = time.perf_counter()
best = None
for _ in range(3):  # the first call also loads the JIT's LLVM module, as every CLI process does
    a = time.perf_counter()
    s = model.sweep("econ.cost.per_token", preset="default", vary={"econ.power.price_kwh_offpeak": spec}, threads=threads)
    b = time.perf_counter()
    if best is None or b - a < best[1] - best[0]:
        best = (a, b, s)
t1, t2, s = best
y = s["econ.cost.per_token"]
assert y.shape == (1_000_000,) and s.nonfinite == 0
py_rate = s.points / s.seconds
cli_rate = cli["evaluations_per_second"]
call_ms, load_ms = (t2 - t1) * 1e3, (t1 - t0) * 1e3  # best call; import and image load once
print(f"points                      {s.points:,} (econ.cost.per_token over econ.power.price_kwh_offpeak, {threads} threads, best of 3)")
print(f"cli evaluation              {cli_rate:14,.0f} evaluations/s   (process {cli_ms:.0f} ms, compile {cli['compile_ms']:.0f} ms)")
print(f"python evaluation           {py_rate:14,.0f} evaluations/s   (call {call_ms:.0f} ms, compile {s.compile_ms:.0f} ms, import+load {load_ms:.0f} ms)")
print(f"python / cli evaluation rate {py_rate / cli_rate:13.2f}x  (aim >= 0.9)")
print(f"python call / cli process    {call_ms / cli_ms:13.2f}x  (aim <= 1.1; the call returns NumPy arrays, the CLI a summary)")
PY
