#!/usr/bin/env python3
"""mpirun -n 2 (and 3) against one process: sweep, uncertainty, sensitivity, plan and simulate --replicas
give the same output.

Files written with --out and the whole stdout of sensitivity and simulate are compared byte for byte; the JSON
documents of sweep, uncertainty and plan are compared byte for byte after blanking their wall-clock
fields (seconds, evaluations_per_second, evaluate_seconds, compile_ms), which differ between any two runs.
Exit 77 (ctest: skipped) when mpirun is not installed.
  mpi_identical.py GPU_STACK IMAGE
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

gs, image = sys.argv[1], sys.argv[2]
mpirun = shutil.which("mpirun")
if not mpirun:
    print("skipped: mpirun is not installed (Debian: openmpi-bin libopenmpi-dev; tools/setup-deps)")
    sys.exit(77)

env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           OMPI_MCA_rmaps_base_oversubscribe="1")
TIMING = re.compile(r'("(?:seconds|evaluations_per_second|compile_ms|evaluate_seconds)": )[-0-9.e+]+')
failures = []


def run(ranks, args):
    cmd = [gs, *args, "--image", image]
    if ranks > 1:
        cmd = [mpirun, "--oversubscribe", "-n", str(ranks), *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        failures.append(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout, p.stderr


def same(what, a, b):
    if a != b:
        failures.append(f"{what}: outputs differ\n--- one process\n{a[:2000]}\n--- mpirun\n{b[:2000]}")
    else:
        print(f"ok: {what} ({len(a)} bytes)")


with tempfile.TemporaryDirectory() as d:
    def out(name):
        return os.path.join(d, name)

    # A 30,000-point sweep (8 chunks of 4096 rows, the last one short; each rank has several) to CSV and JSON.
    sweep = ["sweep", "econ.cost.per_token", "training.tokens_per_sec", "--preset", "default", "--threads", "1",
             "--vary", "econ.power.price_kwh_offpeak=0.02..0.4:1000", "--vary", "par.n_gpus=1024..16384:30", "--json"]
    for ranks in (1, 2, 3):
        for ext in ("csv", "json"):
            stdout, _ = run(ranks, [*sweep, "--out", out(f"sweep{ranks}.{ext}")])
            if ext == "json":
                with open(out(f"stdout{ranks}.txt"), "w") as f:
                    f.write(TIMING.sub(r"\1T", stdout.replace(out(f"sweep{ranks}.json"), "OUT")))
    for ranks in (2, 3):
        for ext in ("csv", "json"):
            same(f"sweep --out .{ext}, {ranks} ranks", open(out(f"sweep1.{ext}")).read(), open(out(f"sweep{ranks}.{ext}")).read())
        same(f"sweep --json summary, {ranks} ranks", open(out("stdout1.txt")).read(), open(out(f"stdout{ranks}.txt")).read())
    # The exact reference evaluator splits its points too.
    ginac = ["sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--engine", "ginac",
             "--vary", "econ.job.capex_rate=0..20:7", "--out", out("ginac.csv")]
    run(1, ginac)
    one = open(out("ginac.csv")).read()
    run(2, ginac)
    same("sweep --engine ginac --out .csv, 2 ranks", one, open(out("ginac.csv")).read())

    # Monte Carlo: the sample-array summary and the streaming one; a sample count that is not a multiple
    # of the chunk size, so the last block is short.
    for extra in ([], ["--streaming"]):
        unc = ["uncertainty", "econ.cost.per_token", "--preset", "dense_training_cost_uncertain", "--samples", "50001",
               "--seed", "7", "--threads", "1", "--json", *extra]
        base = TIMING.sub(r"\1T", run(1, unc)[0])
        for ranks in (2, 3):
            same(f"uncertainty {' '.join(extra)} --json, {ranks} ranks", base, TIMING.sub(r"\1T", run(ranks, unc)[0]))
    sens = ["sensitivity", "econ.cost.per_token", "--preset", "dense_training_cost_uncertain", "--samples", "20000",
            "--seed", "5", "--threads", "1"]
    same("sensitivity (text), 2 ranks", run(1, sens)[0], run(2, sens)[0])
    # The strategy search: about 24,000 candidate layouts evaluated in 6 chunks.
    plan = ["plan", "--preset", "default", "--threads", "1", "--top", "5", "--json"]
    same("plan --json, 2 ranks", TIMING.sub(r"\1T", run(1, plan)[0]), TIMING.sub(r"\1T", run(2, plan)[0]))

    # Simulator replicas: each rank runs a block of replicas (seed + r), in JSON and in text.
    sim = ["simulate", "presets/sim/llama3-405b-16k.toml", "--replicas", "5", "--threads", "1"]
    for extra in (["--json"], []):
        base = run(1, [*sim, *extra])[0]
        same(f"simulate --replicas 5 {' '.join(extra)}, 3 ranks", base, run(3, [*sim, *extra])[0])

    # A bad input fails the same way on every rank: exit 2 and one message.
    bad = ["uncertainty", "econ.cost.per_token", "--preset", "dense_training_cost_fixture"]
    p = subprocess.run([mpirun, "--oversubscribe", "-n", "2", gs, *bad, "--image", image], capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 2 or p.stderr.count("gpu-stack: error:") != 1:
        failures.append(f"bad input under mpirun: exit {p.returncode}, stderr:\n{p.stderr}")
    else:
        print("ok: bad input under mpirun exits 2 with one message")
    # A replica that fails (here: the event cap) is reported as one process reports it.
    capped = ["simulate", "presets/sim/llama3-405b-16k.toml", "--replicas", "3", "--max-events", "100"]
    one = subprocess.run([gs, *capped, "--image", image], capture_output=True, text=True, env=env, timeout=300)
    p = subprocess.run([mpirun, "--oversubscribe", "-n", "2", gs, *capped, "--image", image], capture_output=True, text=True, env=env, timeout=300)
    first = one.stderr.splitlines()[0] if one.stderr else "(none)"
    if one.returncode != 2 or p.returncode != 2 or p.stderr.count(first) != 1:
        failures.append(f"failed replica under mpirun: exits {one.returncode}/{p.returncode}, stderr:\n{p.stderr}")
    else:
        print("ok: a failed replica under mpirun exits 2 with the one-process message")

    # MPI is a module opened only under a launcher: gpu-stack itself does not link libmpi, and a missing
    # module leaves each rank running alone with one warning each, answering as one process does.
    needed = subprocess.run(["readelf", "-d", gs], capture_output=True, text=True).stdout
    if "libmpi" in needed:
        failures.append("gpu-stack links libmpi (readelf -d):\n" + needed)
    else:
        print("ok: gpu-stack does not link libmpi")
    quick = ["resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture"]
    one = subprocess.run([gs, *quick, "--image", image], capture_output=True, text=True, env=env, timeout=300)
    p = subprocess.run([mpirun, "--oversubscribe", "-n", "2", gs, *quick, "--image", image], capture_output=True, text=True,
                       env=dict(env, GSTACK_MPI_MODULE=out("no-such-module.so")), timeout=300)
    if p.returncode != 0 or p.stderr.count("cannot load the MPI module") != 2 or sorted(p.stdout.splitlines()) != sorted(one.stdout.splitlines() * 2):
        failures.append(f"missing MPI module under mpirun: exit {p.returncode}, stderr:\n{p.stderr}\nstdout:\n{p.stdout}")
    else:
        print("ok: a missing MPI module leaves each rank running as one process, with a warning")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
