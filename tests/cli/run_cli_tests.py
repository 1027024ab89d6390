#!/usr/bin/env python3
"""Golden tests of the gpu-stack command line.

Each case runs gpu-stack and checks its exit status and output. Numbers are compared from the JSON
output with a relative tolerance of 1e-12 (REL); text output is compared with golden files in
tests/cli/golden/ where it contains no symbolic formula (GiNaC's term order is not reproducible), and
by the lines it must contain otherwise.

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
SHARED = os.path.join(HERE, "..", "..", "data", "fixtures")

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


def fixture():
    with open(os.path.join(SHARED, "dense_training_cost_fixture.json")) as f:
        return json.load(f)


# ---- the fixture on the shipped model (the done-when criteria)

@case
def scenario_report_fixture_json(cli):
    fx = fixture()
    j = cli.json("scenario-report", "dense_training_cost_fixture", image="model")
    check(j["status"] == "ok" and j["issue_count"] == 0, f"status {j['status']}")
    by_target = {t["target"]: t for t in j["targets"]}
    check(len(j["targets"]) == 7, "seven targets")
    for name, expected in fx["expected"].items():
        close(by_target[name]["value"], expected, name)
    for label, name in fx["targets"].items():
        check(any(t["label"] == label and t["target"] == name for t in j["targets"]), f"target {label}")
    pinned = {o["variable"] for o in j["overrides"]}
    missing = set(fx["assignments_that_pin_non_root_variables"]) - pinned
    check(not missing, f"pinned assignments not reported as overrides: {sorted(missing)}")


@case
def default_image_next_to_binary(cli):
    # No --image and no GSTACK_IMAGE: build/bin/gpu-stack reads build/model.gsimg.
    if os.path.dirname(os.path.dirname(os.path.abspath(cli.bin))) != os.path.dirname(os.path.abspath(cli.model_image)):
        return
    j = cli.json("resolve", "econ.job.dc_power", "--preset", "dense_training_cost_fixture", image=None)
    close(j["value"], 5200.0, "job power")


# ---- export

@case
def export_json(cli):
    out, _ = cli.run("export", "json", "cluster.node.peak_flops", "--dependents")
    j = json.loads(out)
    check(j["direction"] == "dependents", "direction")
    names = [n["name"] for n in j["nodes"]]
    check(names == sorted(names) and "cluster.rack.peak_flops" in names, "sorted nodes")
    check(cli.json("export", "json", "cluster.node.peak_flops", "--dependents") == j, "--json gives the same document")
    # The timing constraint bounds lab.delay by lab.period, so with constraints the period is upstream.
    j = json.loads(cli.run("export", "json", "lab.delay", "--constraints")[0])
    check("lab.period" in [n["name"] for n in j["nodes"]], "constraint edges")
    j = json.loads(cli.run("export", "json", "lab.delay")[0])
    check("lab.period" not in [n["name"] for n in j["nodes"]], "no constraint edges by default")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cone.dot")
        _, err = cli.run("export", "dot", "cluster.rack.peak_flops", "-o", path)
        contains(err, "wrote " + path)
        with open(path) as f:
            check(f.read().startswith("digraph gpu_stack {"), "file written")
        check(os.listdir(d) == ["cone.dot"], "no temporary file left behind")


# Further cases live in cases_<area>.py beside this file, one file per area of the CLI, so several
# people can add cases without editing this one. They run in this module's namespace and use its helpers.
for _path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
    with open(_path) as _f:
        exec(compile(_f.read(), _path, "exec"), globals())


# ---- analysis: root-debt, verify, scenario-audit, next-work (runtime/analysis, docs/analysis.md)

FIXTURE_TOTAL = 30.00078  # USD: capex 30 + power 7.8e-4 over the fixture's 1e7 tokens


def normalised_time(text):
    import re
    return re.sub(r"in \d+\.\d\d s\n", "in <t> s\n", text)


@case
def root_debt_json(cli):
    j = cli.json("root-debt", "--limit", "1000")
    check(j["mode"] == "blast-radius" and j["shown"] == j["total_roots"] == len(j["rows"]), "every root shown")
    weights = [r["dependents"] for r in j["rows"]]
    check(weights == sorted(weights, reverse=True), "heaviest first")
    check(all(r["boundary_category"] == "primitive-root" and r["primitive_boundary"] for r in j["rows"]), "roots are primitive")
    with_constraints = {r["variable"]: r["dependents"] for r in cli.json("root-debt", "--include-constraints", "--limit", "1000")["rows"]}
    check(all(with_constraints[r["variable"]] >= r["dependents"] for r in j["rows"]), "constraints only add reach")
    f = cli.json("root-debt", "--families", "--limit", "1000")
    check(sum(x["total_weight"] for x in f["families"]) == sum(weights), "family weights add up")
    check(sum(x["root_count"] for x in f["families"]) == j["total_roots"], "every root in one family")
    check(all(len(x["top_roots"]) <= 4 for x in f["families"]), "at most four heaviest roots per family")


@case
def root_debt_influence_fixture(cli):
    args = ["root-debt", "--preset", "dense_training_cost_fixture", "--target", "econ.cost.per_token", "--limit", "1000"]
    j = cli.json(*args, image="model")
    check(j["complete"] and j["missing"] == 0, "the fixture resolves")
    close(j["value"], 3.000078e-6, "cost per token")
    rows = {r["variable"]: r for r in j["rows"]}
    close(rows["econ.job.capex_rate"]["elasticity"], 30 / FIXTURE_TOTAL, "capex share of the cost")
    close(rows["econ.job.capex_rate"]["derivative"], 1.5e-7, "wallclock / tokens")
    check(abs(rows["training.total_tokens"]["elasticity"]) < 1e-12, "cost per token is flat in the token count")
    close(rows["training.t_exposed_comm"]["elasticity"], 1 / 6, "25 of the 150 ms step")
    close(rows["gpu.peak_flops_power_limited"]["elasticity"], -5 / 6, "125 of the 150 ms step")
    check(rows["econ.job.capex_rate"]["origin"]["layer"] == "dense_training_cost_fixture", "origin layer")
    ranks = [abs(r["elasticity"]) for r in j["rows"]]
    check(ranks == sorted(ranks, reverse=True), "ranked by |elasticity|")
    check(j["variance_method"] is None and j["rows"][0]["variance_share"] is None, "no distributions in the fixture")
    # Distributions from a preset's [uncertainty] table: first-order shares, (dy/dx)^2 Var(x) normalised.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "spread.toml")
        with open(path, "w") as f:
            f.write('extends = ["dense_training_cost_fixture"]\n[uncertainty]\n'
                    '"econ.job.capex_rate" = { dist = "normal", mean = "20 USD/s", sd = "2 USD/s" }\n'
                    '"econ.power.price_kwh_peak" = { dist = "normal", mean = "0.36 USD/(kW*h)", sd = "0.036 USD/(kW*h)" }\n')
        presets = os.path.join(HERE, "..", "..", "presets")
        j = cli.json("root-debt", "--preset", path, "--presets", presets, "--target", "econ.cost.per_token", image="model")
        rows = {r["variable"]: r for r in j["rows"]}
        a, b = 30.0 ** 2, 7.8e-4 ** 2  # equal 10% spreads: shares go as the squared elasticities
        close(rows["econ.job.capex_rate"]["variance_share"], a / (a + b), "capex variance share")
        check(abs(rows["econ.power.price_kwh_peak"]["variance_share"] - b / (a + b)) < 1e-15, "tariff variance share")
        close(j["linear_sd"], 0.1 * (a + b) ** 0.5 / 1e7, "first-order sd")
        check(j["variance_method"].startswith("first-order Taylor"), "method named")


@case
def verify_model_full(cli):
    # The fixture's presets only: the rest of presets/ changes independently of the model.
    with tempfile.TemporaryDirectory() as d:
        for name in ("dense_variant_selector.toml", "dense_training_cost_fixture.toml"):
            shutil.copy(os.path.join(HERE, "..", "..", "presets", name), d)
        j = cli.json("verify", "--profile", "full", "--presets", d, image="model")
    failed = [c["name"] + ": " + "; ".join(c["details"][:3]) for c in j["checks"] if c["status"] == "fail"]
    check(not failed, f"verify --profile full fails on the shipped model: {failed}")
    check(j["passed"] and j["variables"] > 1000, "the shipped model passes")


@case
def verify_stale_image(cli):
    gstackc = os.path.join(os.path.dirname(os.path.abspath(cli.bin)), "gstackc")
    with tempfile.TemporaryDirectory() as d:
        for name in ("00_units.gstack", "01_physics.gstack"):
            shutil.copy(os.path.join(HERE, "..", "..", "model", name), d)
        model = os.path.join(d, "t.gstack")
        with open(model, "w") as f:
            f.write('system t "Stale-image test"\nref n "Synthetic" kind memo\nvar t.a : m "a" ref n\n'
                    'var t.b : m "b" ref n\neq b: t.b = 2 * t.a ref n\n')
        image = os.path.join(d, "t.gsimg")
        p = subprocess.run([gstackc, "compile", d, "-o", image], capture_output=True, text=True)
        check(p.returncode == 0, f"gstackc: {p.stderr}")
        out, _ = cli.run("verify", "--image", image, "--presets", d, image=None)
        contains(out, "  ok    freshness   3 of 3 source files match the image\n")
        with open(model, "a") as f:
            f.write("# edited after the compile\n")
        out, _ = cli.run("verify", "--image", image, "--presets", d, image=None, expect=1)
        contains(out, "  FAIL  freshness   stale image: 1 of 3 source files changed since it was compiled\n",
                 model + " changed since the image was compiled")


@case
def next_work_json(cli):
    j = cli.json("next-work", "--preset", "dense_training_cost_fixture", "--limit", "100", image="model")
    check(j["preset"] == "dense_training_cost_fixture" and j["targets"] == ["econ.cost.per_token"], "headline target")
    check([i["rank"] for i in j["items"]] == list(range(1, len(j["items"]) + 1)), "ranks")
    check(all(set(i) >= {"rank", "kind", "title", "evidence"} for i in j["items"]), "item shape")
    check(not any(i["kind"] == "blocking-input" for i in j["items"]), "the fixture blocks nothing")
    check(any(i["title"] == "State the uncertainty of econ.job.capex_rate" for i in j["items"]), "high-influence point value")
    check(j["items"][-1]["kind"] == "root-debt", "the heaviest root family comes last")
    check(any("calibration residuals" in n for n in j["notes"]), "residuals note")
    runs = os.path.join(HERE, "..", "..", "data", "runs", "calibration-runs.csv")
    if os.path.exists(runs):
        j = cli.json("next-work", "--preset", "dense_training_cost_fixture", "--runs", runs, "--limit", "100", image="model")
        check(any(runs in n for n in j["notes"]), "residuals read from the runs")


# ---- validate and calibrate against published runs (data/runs/calibration-runs.csv)

RUNS = os.path.join(HERE, "..", "..", "data", "runs", "calibration-runs.csv")


@case
def validate_calibration_runs_json(cli):
    j = cli.json("validate", "--runs", RUNS, image="model")
    check(len(j["rows"]) == 54, "every row is listed")
    for r in j["rows"]:
        check(r["built"] or r.get("reason"), f"{r['id']}: an unbuilt row carries its reason")
    t = j["summary_tier_a"]["throughput"]
    check(set(t) == {"n", "median_ape", "mean_ape"}, "summary fields")
    check(t["n"] >= 20 and t["median_ape"] <= 7.0, f"tier-A throughput median APE {t['median_ape']} over {t['n']} rows")
    for name, s in j["summary"].items():
        check(s["n"] >= 1 and s["median_ape"] >= 0, f"summary {name}")


@case
def calibrate_reproduces_preset(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fitted.toml")
        cli.run("calibrate", "--runs", RUNS, "--out", out, image="model")
        with open(out) as f:
            text = f.read()
        contains(text, 'name = "fitted"', "[assign]", '"kernel.gemm.efficiency" = ', "Objective: mean |ln(predicted / reported)|")
        j = cli.json("calibrate", "--runs", RUNS, image="model")
        check(j["objective"] <= j["objective_start"], "the fit does not get worse than its start")
        check(len(j["rows"]) >= 20, "tier-A rows used")


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
