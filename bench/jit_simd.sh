#!/usr/bin/env bash
# SIMD batch kernels (issue 14, item 2): the scalar JIT batch (the former kernel, the baseline) and the
# block batch (structure-of-arrays blocks through LLVM's loop vectorizer for the host CPU) with each of
# its rewrites added in turn (integer powers, divisor reciprocals, libmvec), compiled from the same cone
# in the same process (build/bin/bench_plan simd). Two sweeps of econ.cost.per_token under the default
# preset, filled and stored as `sweep` does: deep (par.dp x arch.d_model: most of the cone runs per row)
# and shallow (econ.cluster.utilization x econ.gpu.capex: most of it folds). Reports rows/s per core
# from the evaluating thread's CPU time (least of three interleaved runs), each kernel against the one
# before and the scalar one, and the 2-thread rate over 1 thread by wall clock with the load average.
# Targets (issue 14): deep >= 2e7/s per core, shallow >= 1e8/s, >= 1.9x on 2 threads. Exit 1 when a
# kernel differs from the scalar one by more than 1e-12, when 2 threads answer otherwise than 1, or
# when a varied input does not move the target (the targets are reported, not enforced: they depend on
# the machine and its load).
#   bench/jit_simd.sh BUILD_DIR [ROWS]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [ROWS]}
rows=${2:-4194304}
root=$(cd "$(dirname "$0")/.." && pwd)
bench_plan=$build/bin/bench_plan
[ -x "$bench_plan" ] || { echo "jit_simd: $bench_plan not built (cmake --build BUILD --target benchmarks)" >&2; exit 2; }
echo "jit_simd: load average $(cut -d' ' -f1 /proc/loadavg), $(nproc) cores"
"$bench_plan" simd "$build/model.gsimg" "$root/presets" "$rows"
