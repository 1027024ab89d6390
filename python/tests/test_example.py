"""examples/python_quickstart.py runs and prints its four answers."""
import os
import subprocess
import sys

from conftest import ROOT


def test_quickstart_example_runs():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python_quickstart.py")], capture_output=True,
                       text=True, cwd=ROOT, env=os.environ.copy(), timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("econ.cost.per_token = ") and lines[0].endswith("USD/Mtoken")  # display units: per million tokens
    assert any(l.startswith("sweep: 200 points; each extra 0.01 USD/kWh adds ") for l in lines)
    assert any(l.startswith("uncertainty: median ") for l in lines)
    assert any(l.startswith("sensitivity: ") for l in lines)
    assert any(l.startswith("error (code 2): ") and "econ.cost.per_tokn" in l for l in lines)
