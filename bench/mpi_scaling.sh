#!/usr/bin/env bash
# Scaling from one to two MPI ranks (issue 18): the same sweep (10^6 points, cost per token) and the same
# Monte Carlo run (2x10^6 samples) as one process and under `mpirun -n 2`, each rank on one thread, best
# of three wall-clock times per case. Prints the speedup 1 rank / 2 ranks (ideal 2.0; the two ranks share
# the result at the end, and MPI start-up is part of the time), and checks the outputs are identical.
#   bench/mpi_scaling.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR}
gs=$build/bin/gpu-stack
command -v mpirun >/dev/null || { echo "mpi_scaling: skipped, mpirun is not installed (tools/setup-deps)"; exit 0; }
ldd "$gs" | grep -q libmpi || { echo "mpi_scaling: skipped, the build has no MPI (GSTACK_WITH_MPI)"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$gs" "$build/model.gsimg" "$tmp" <<'PY'
import re, subprocess, sys, time

gs, image, tmp = sys.argv[1:4]
TIMING = re.compile(r'("(?:seconds|evaluations_per_second|compile_ms)": )[-0-9.e+]+')
cases = {
    "sweep 1e6 points": ["sweep", "econ.cost.per_token", "--preset", "default", "--threads", "1",
                         "--vary", "econ.power.price_kwh_offpeak=0.02..0.4:1000000", "--json", "--out", f"{tmp}/OUT.csv"],
    "uncertainty 2e6 samples": ["uncertainty", "econ.cost.per_token", "--preset", "dense_training_cost_uncertain",
                                "--samples", "2000000", "--seed", "3", "--threads", "1", "--json"],
}


def best_of_three(ranks, args):
    best, out = None, None
    for i in range(3):
        run_args = [a.replace("OUT", f"r{ranks}") for a in args]
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks), gs, *run_args, "--image", image] if ranks > 1 else [gs, *run_args, "--image", image]
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        dt = time.perf_counter() - t
        if best is None or dt < best:
            best = dt
        out = TIMING.sub(r"\1T", p.stdout.replace(f"r{ranks}", "OUT"))
        if "--out" in args:
            out += open(f"{tmp}/r{ranks}.csv").read()
    return best, out


print(f"{'case':26} {'1 rank s':>9} {'2 ranks s':>9} {'speedup':>8}  identical")
for name, args in cases.items():
    t1, o1 = best_of_three(1, args)
    t2, o2 = best_of_three(2, args)
    print(f"{name:26} {t1:9.3f} {t2:9.3f} {t1 / t2:8.2f}  {'yes' if o1 == o2 else 'NO'}")
    if o1 != o2:
        sys.exit(1)
PY
