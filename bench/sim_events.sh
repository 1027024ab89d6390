#!/usr/bin/env bash
# Runs the simulator benchmarks (bench_sim, built when Google Benchmark is installed): the event-loop
# rate (aim: at least 5 million events per second) and the 16,384-GPU, 54-day run (aim: under 10 s).
#   bench/sim_events.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
bin=$build/bin/bench_sim
if [ ! -x "$bin" ]; then
  echo "sim_events: skipped ($bin not built; install libbenchmark-dev and rebuild the benchmarks target)"
  exit 0
fi
"$bin" --benchmark_min_time=0.5
