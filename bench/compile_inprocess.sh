#!/usr/bin/env bash
# Runs the in-process front-end benchmarks (bench_compile, built when Google Benchmark is installed).
#   bench/compile_inprocess.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
bin=$build/bin/bench_compile
if [ ! -x "$bin" ]; then
  echo "compile_inprocess: skipped ($bin not built; install libbenchmark-dev and rebuild the benchmarks target)"
  exit 0
fi
"$bin" --benchmark_min_time=0.5
