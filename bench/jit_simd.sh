#!/usr/bin/env bash
# SIMD batch kernels (issue 14, item 2): the JIT's block batch (structure-of-arrays blocks through LLVM's
# loop vectorizer for the host CPU) against the scalar JIT batch (the former kernel), compiled from the
# same cone in the same process (build/bin/bench_plan simd). Two sweeps of econ.cost.per_token under the
# default preset: deep (par.dp x arch.d_model: most of the cone runs per row) and shallow
# (econ.cluster.utilization x econ.gpu.capex: most of it folds). Reports evaluations/s per core on one
# thread, the 2-thread rate, the SIMD/scalar ratio and the 2-thread scaling, after checking that both
# kernels agree to 1e-12. Targets (issue 14): deep >= 2e7/s per core, shallow >= 1e8/s, >= 1.9x on
# 2 threads. Exit 1 when the kernels disagree (the targets are reported, not enforced: they depend on
# the machine and its load).
#   bench/jit_simd.sh BUILD_DIR [ROWS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [ROWS]}
rows=${2:-8388608}
root=$(cd "$(dirname "$0")/.." && pwd)
bench_plan=$build/bin/bench_plan
[ -x "$bench_plan" ] || { echo "jit_simd: $bench_plan not built (cmake --build BUILD --target benchmarks)" >&2; exit 2; }
echo "jit_simd: load average $(cut -d' ' -f1 /proc/loadavg), $(nproc) cores"
"$bench_plan" simd "$build/model.gsimg" "$root/presets" "$rows"
