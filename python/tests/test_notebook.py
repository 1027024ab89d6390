"""examples/quickstart.ipynb executes, and the numbers it prints equal the CLI's for the same questions.

The notebook runs in a Python kernel through nbclient (Debian: python3-nbclient, python3-ipykernel; see
tools/setup-deps). Where nbclient is missing, its code cells run in order as one script instead, so the
notebook's code is still executed and checked."""
import json
import os
import re
import subprocess
import sys

from conftest import ROOT

NOTEBOOK = os.path.join(ROOT, "examples", "quickstart.ipynb")
MARK = "----8<---- next cell"


def code_cells():
    with open(NOTEBOOK) as f:
        nb = json.load(f)
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def executed_outputs():
    """The printed text of each code cell, in order."""
    try:
        import nbclient
        import nbformat
    except ImportError:
        script = f"\nprint({MARK!r})\n".join(code_cells())
        p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert p.returncode == 0, p.stderr
        return [part.strip("\n") for part in p.stdout.split(MARK + "\n")]
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": ROOT}}).execute()
    outputs = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert not errors, "\n".join(errors[0].traceback)
            outputs.append("".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout").strip("\n"))
    return outputs


def rel_close(a, b, tol, what):
    assert abs(a - b) <= tol * abs(b), f"{what}: {a} vs {b}"


def test_quickstart_notebook_matches_cli(cli):
    resolved, swept, uncertain = executed_outputs()
    # 1. resolve: the display line and the SI value (printed to 10 digits) are the CLI's.
    ref = cli.json("resolve", "econ.cost.per_token", "--preset", "default")
    assert resolved.splitlines()[0].startswith("econ.cost.per_token = ")
    rel_close(float(re.search(r"value (\S+)", resolved).group(1)), ref["value"], 1e-9, "resolved value")
    # 2. sweep: a NumPy array of 1,000 points whose ends are the CLI's resolutions at 0.02 and 0.40 USD/kWh.
    m = re.match(r"ndarray \(1000,\) first (\S+) last (\S+) USD·token\^-1$", swept.splitlines()[0])
    assert m, swept
    for text, price in ((m.group(1), "0.02"), (m.group(2), "0.40")):
        at = cli.json("resolve", "econ.cost.per_token", "--preset", "default", "--assign", f"econ.power.price_kwh_offpeak={price} USD/(kW*h)")
        rel_close(float(text), at["value"], 1e-9, f"sweep at {price} USD/kWh")
    # 3. uncertainty: the same seed gives the CLI's percentiles; the histogram holds every sample.
    u = cli.json("uncertainty", "econ.cost.per_token", "--preset", "dense_training_cost_uncertain", "--samples", "20000", "--seed", "7")
    m = re.match(r"median (\S+) p5 (\S+) p95 (\S+) samples 20000", uncertain)
    assert m, uncertain
    for text, key in zip(m.groups(), ("median", "p5", "p95")):
        rel_close(float(text), u[key], 1e-9, key)
    counts = json.loads(uncertain.splitlines()[1].removeprefix("histogram "))
    assert sum(counts) == 20000 and len(counts) == 10
