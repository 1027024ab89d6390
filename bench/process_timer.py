"""Times a command as a whole process, for the latency benchmarks in bench/*.sh.

measure() warms the page cache, then returns the median wall time and the mean CPU time (user + system of
the child) over `runs` runs, in seconds. The CPU time is the figure to trust on a busy machine. When
hyperfine is installed its median replaces the wall time.
"""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(argv, ok_codes=(0,)):
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok_codes:
        sys.exit(f"{' '.join(argv)} exited {p.returncode}: {p.stderr}")


def measure(argv, runs, warmup=2, ok_codes=(0,)):
    for _ in range(warmup):
        run(argv, ok_codes)
    walls = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(runs):
        t0 = time.perf_counter()
        run(argv, ok_codes)
        walls.append(time.perf_counter() - t0)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / runs
    wall = statistics.median(walls)
    if shutil.which("hyperfine"):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "h.json")
            cmd = ["hyperfine", "--style", "none", "--warmup", str(warmup), "--runs", str(runs), "--export-json", path]
            if ok_codes != (0,):
                cmd.append("--ignore-failure")
            subprocess.run(cmd + [" ".join(argv)], stdout=subprocess.DEVNULL, check=True)
            with open(path) as f:
                wall = json.load(f)["results"][0]["median"]
    return wall, cpu
