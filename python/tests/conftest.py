# Shared helpers: the gpu-stack binary of the same build, to check that Python and the CLI agree.
import json
import os
import subprocess

import pytest

import gpu_stack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_binary():
    bin_dir = os.environ.get("GSTACK_BIN") or os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(gpu_stack.__file__))), "bin")
    return os.path.join(bin_dir, "gpu-stack")


class Cli:
    def run(self, *argv, expect=0):
        p = subprocess.run([cli_binary(), *argv], capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "GSTACK_IMAGE": gpu_stack.default_image_path()})
        assert p.returncode == expect, f"gpu-stack {' '.join(argv)}: exit {p.returncode}\n{p.stderr}"
        return p

    def json(self, *argv):
        return json.loads(self.run(*argv, "--json").stdout)


@pytest.fixture(scope="session")
def cli():
    return Cli()


@pytest.fixture(scope="session", autouse=True)
def in_source_tree():
    # Relative paths in the tests (presets/sim/..., data/runs/...) are from the source tree.
    old = os.getcwd()
    os.chdir(ROOT)
    yield
    os.chdir(old)
