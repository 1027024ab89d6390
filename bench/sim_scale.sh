#!/usr/bin/env bash
# The simulator's cost against the fleet's size (bench_sim_scale): the event loop against
# std::priority_queue, whole runs of the Llama 3 scenario scaled to 16,384 and 1,048,576 GPUs against the
# bare event loop (aim: within 4x), the million-GPU run's peak heap and CPU time (aims: under 4 GiB and
# 60 s, issue 16), and the scaling exponent of simulate over 1,024..102,400 GPUs (aim: at most 1.1).
# Ratios are to baselines measured in the same run; a failed axis check exits 1.
#   bench/sim_scale.sh BUILD_DIR [--quick]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [--quick]}
shift
"$build/bin/bench_sim_scale" "$@"
