#!/usr/bin/env bash
# How cost grows with the model (bench_scaling): the front end's time and peak heap per relation, image
# loading (whole image; one target's cone), one target over a deep chain (resolver selection and cone
# build, interpreter, GiNaC resolve) and JIT compile time against cone length, over generated models of
# 1,000..99,000 relations, each with its fitted log-log exponent (aim: at most 1.1; one cone's load: flat).
# A failed axis check (the model, image or cone did not grow, a wrong value) exits 1; a missed aim is
# printed and exits 0.
#   bench/scaling.sh BUILD_DIR [--quick] [--upto N]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [--quick] [--upto N]}
shift
"$build/bin/bench_scaling" "$@"
