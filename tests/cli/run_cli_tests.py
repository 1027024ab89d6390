#!/usr/bin/env python3
"""CLI cases written in Python, for the checks a text case (tests/cli/cases/*.test, run by
run_text_tests.py) cannot state: expectations computed from a table or a loop, or runs compared with each
other. Write a new case as a text file unless it needs that (docs/testing.md).

Each case runs gpu-stack and checks its exit status and output. Numbers are compared from the JSON
output with a relative tolerance of 1e-12 (REL); text output is compared with golden files in
tests/cli/golden/.

  run_cli_tests.py --list
  run_cli_tests.py --case NAME --gpu-stack BIN --test-image FILE --model-image FILE [--update]

--update rewrites the golden file of the case instead of comparing.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

REL = 1e-12
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
RUNS = os.path.join(HERE, "..", "..", "data", "runs", "calibration-runs.csv")

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def close(actual, expected, what):
    scale = max(abs(actual), abs(expected))
    err = 0.0 if scale == 0 else abs(actual - expected) / scale
    check(err <= REL, f"{what}: {actual!r} differs from {expected!r} (relative {err:.3g} > {REL})")


class Cli:
    def __init__(self, args):
        self.bin = args.gpu_stack
        self.test_image = args.test_image
        self.model_image = args.model_image
        self.update = args.update

    def run(self, *argv, image="test", env=None, expect=0):
        cmd = [self.bin, *argv]
        if image == "test":
            cmd += ["--image", self.test_image]
        elif image == "model":
            cmd += ["--image", self.model_image]
        full_env = dict(os.environ)
        for key in ("GSTACK_IMAGE", "GSTACK_PRESETS"):
            full_env.pop(key, None)
        full_env.update(env or {})
        p = subprocess.run(cmd, capture_output=True, text=True, env=full_env)
        check(p.returncode == expect,
              f"{' '.join(cmd)}: exit {p.returncode}, expected {expect}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p.stdout, p.stderr

    def json(self, *argv, **kw):
        out, _ = self.run(*argv, "--json", **kw)
        return json.loads(out)

    def golden(self, name, text):
        text = text.replace(self.test_image, "<test-image>").replace(self.model_image, "<model-image>")
        path = os.path.join(GOLDEN, name + ".txt")
        if self.update:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            return
        check(os.path.exists(path), f"no golden file {path}; run with --update to create it")
        with open(path) as f:
            expected = f.read()
        check(text == expected, f"output differs from {path}:\n--- expected\n{expected}\n--- actual\n{text}")


def contains(text, *parts):
    for part in parts:
        check(part in text, f"missing {part!r} in:\n{text}")


# Cases live in cases_<area>.py beside this file, one file per area of the CLI. They run in this module's
# namespace and use its helpers.
for _path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
    with open(_path) as _f:
        exec(compile(_f.read(), _path, "exec"), globals())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--case")
    ap.add_argument("--gpu-stack")
    ap.add_argument("--test-image")
    ap.add_argument("--model-image")
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    names = [args.case] if args.case else list(CASES)
    cli = Cli(args)
    failed = 0
    for name in names:
        try:
            CASES[name](cli)
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
