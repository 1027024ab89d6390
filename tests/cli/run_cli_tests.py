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


# ---- stats

@case
def stats_text(cli):
    out, _ = cli.run("stats")
    cli.golden("stats_text", out)


@case
def stats_json(cli):
    j = cli.json("stats")
    check(j["stats"]["constants"] == 24, "24 physical constants")
    check(j["stats"]["variables"] == j["coverage"]["non_constant_variables"] + 24, "variables = non-constants + constants")
    check(j["graph"]["cycles"] == 1, "the test model has exactly one cycle (closed by a variant)")
    check(sum(j["relations_by_role"].values()) == j["stats"]["relations"], "roles add up")


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
def resolve_fixture_override_capex(cli):
    j = cli.json("resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture",
                 "--assign", "econ.job.capex_rate=0", image="model")
    close(j["value"], 7.8e-11, "cost per token without capital cost")
    check(j["unit"] == "USD/token", "display unit")


@case
def resolve_fixture_text(cli):
    out, _ = cli.run("resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", image="model")
    # Text quotes cost per million tokens; --si keeps the declared unit (the same value).
    contains(out, "econ.cost.per_token = 3.000078 USD/Mtoken\n", "overrides (assignments that replace a relation):",
             "  econ.job.capex_rate = 20 USD/s replaces ")
    out, _ = cli.run("resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--si", image="model")
    contains(out, "econ.cost.per_token = 3.000078e-06 USD/token\n")


@case
def default_image_next_to_binary(cli):
    # No --image and no GSTACK_IMAGE: build/bin/gpu-stack reads build/model.gsimg.
    if os.path.dirname(os.path.dirname(os.path.abspath(cli.bin))) != os.path.dirname(os.path.abspath(cli.model_image)):
        return
    j = cli.json("resolve", "econ.job.dc_power", "--preset", "dense_training_cost_fixture", image=None)
    close(j["value"], 5200.0, "job power")


# ---- resolve on the test model

@case
def resolve_trace_explain(cli):
    out, _ = cli.run("resolve", "training.t_step", "--preset", "dense_training_cost_fixture", "--trace", "--explain-selection")
    cli.golden("resolve_trace_explain", out)


@case
def resolve_json_sections(cli):
    j = cli.json("resolve", "training.t_step", "--preset", "dense_training_cost_fixture", "--explain-selection")
    close(j["value"], 0.15, "step time")
    check(j["complete"] and j["display"] == "150 ms", "display in ms")
    steps = {s["variable"]: s for s in j["steps"]}
    check(steps["training.flops_per_step"]["relation"]["variant"] == "dense", "variant step")
    check("'dense'" in steps["training.flops_per_step"]["reason"], "selection reason")
    check(steps["training.t_compute"]["relation"]["location"].startswith("tests/unit/runtime/data/10_fixture.gstack:"), "location")
    check("par.n_gpus" in j["assigned"], "assigned inputs listed")
    check(all(c["status"] == "satisfied" for c in j["constraints"]), "all checks pass")


@case
def resolve_assign_units_and_variant(cli):
    base = ["--assign", "arch.flops.step_moe=3e20 FLOP", "--assign", "training.recompute_overhead=1",
            "--assign", "training.optimizer_flop_multiplier=1"]
    j = cli.json("resolve", "training.flops_executed_per_step", *base, "--variant", "training.flops_per_step=moe")
    close(j["value"], 3e20, "moe FLOPs")
    j = cli.json("resolve", "cluster.node.power", "--assign", "gpu.power.total=0.5 kW", "--assign", "cluster.node.n_gpus=2",
                 *[f"--assign=cluster.node.{k}_power=0" for k in ("cpu", "ram", "nic", "storage", "misc")])
    close(j["value"], 1000.0, "node power from kW input")


@case
def resolve_missing(cli):
    out, _ = cli.run("resolve", "cluster.node.peak_flops", "--assign", "cluster.node.n_gpus=8", "--missing")
    contains(out, "cluster.node.peak_flops is not determined: 1 missing input\n", "  formula: cluster.node.peak_flops = ",
             "gpu.peak_flops", "  missing: gpu.peak_flops\n",
             "  gpu.peak_flops [FLOP/s] family gpu, primitive-root: root input; assign it\n",
             "    hint: --assign gpu.peak_flops=VALUE[ UNIT]\n")
    j = cli.json("resolve", "training.flops_executed_per_step", "--missing")
    m = {x["variable"]: x for x in j["missing"]}
    check(j["value"] is None and not j["complete"], "incomplete")
    check(set(m) <= {"training.flops_per_step", "training.recompute_overhead", "training.optimizer_flop_multiplier"}, str(set(m)))
    fam = m["training.flops_per_step"]
    check(fam["category"] == "variant-family" and fam["variant_keys"] == ["dense", "moe"], "variant family")
    check(fam["family"] == "training" and fam["unit"] == "FLOP" and fam["dependents_count"] > 3, "family, unit, dependents")
    for name in m:
        check(name in j["formula"], f"formula mentions {name}")


@case
def resolve_constraints(cli):
    out, _ = cli.run("resolve", "lab.delay", "--assign", "lab.a=3", "--assign", "lab.speed=1", "--assign", "lab.freq=0.5",
                     "--constraints")
    cli.golden("resolve_constraints", out)
    out, _ = cli.run("resolve", "lab.apx", "--assign", "lab.a=2", "--assign", "lab.regime=50")
    contains(out, "VIOLATED: 1 (all checks with --constraints)")


@case
def resolve_fail_on_violated(cli):
    args = ["resolve", "lab.pos", "--assign", "lab.a=1", "--assign", "lab.b=2"]
    cli.run(*args)
    _, err = cli.run(*args, "--fail-on-violated-constraints", expect=1)
    contains(err, "1 violated constraint")
    j = cli.json(*args, "--fail-on-violated-constraints", expect=1)
    check(j["violations"] == 1, "one violation")
    cli.run("resolve", "lab.sum", "--assign", "lab.a=1", "--assign", "lab.b=2", "--fail-on-violated-constraints")


@case
def resolve_check_overrides(cli):
    base = ["resolve", "cluster.node.power", "--assign", "gpu.power.total=500 W", "--assign", "gpu.tdp=1 kW",
            "--assign", "cluster.node.n_gpus=1"] + [f"--assign=cluster.node.{k}_power=0" for k in ("cpu", "ram", "nic", "storage", "misc")]
    out, err = cli.run(*base, "--assign", "gpu.power.utilization=0.4", "--check-overrides")
    contains(out, "gpu.power.total = 500 W replaces fixture.power_total: DISAGREES: the relation gives 400 W")
    contains(err, "warning: the value assigned to gpu.power.total disagrees with fixture.power_total")
    out, err = cli.run(*base, "--assign", "gpu.power.utilization=0.4", "--check-overrides", "--tolerance", "0.5")
    contains(out, "replaces fixture.power_total: agrees")
    check("warning" not in err, "no warning within tolerance")
    j = cli.json(*base, "--check-overrides")
    o = [x for x in j["overrides"] if x["variable"] == "gpu.power.total"][0]
    check(o["check"]["status"] == "unchecked" and o["check"]["missing"] == ["gpu.power.utilization"], "unchecked override")


@case
def resolve_bad_input(cli):
    _, err = cli.run("resolve", "econ.cost.per_tokn", expect=2)
    contains(err, "unknown target variable 'econ.cost.per_tokn'; did you mean 'econ.cost.per_token'")
    _, err = cli.run("resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixtur", expect=2)
    contains(err, "unknown preset 'dense_training_cost_fixtur'", "did you mean 'dense_training_cost_fixture'")
    _, err = cli.run("resolve", "gpu.peak_flops", "--assign", "gpu.peak_flops=3 W", expect=2)
    contains(err, "given in W (", "measured in FLOP/s (")
    _, err = cli.run("resolve", "gpu.peak_flops", "--assign", "gpu.peak_flop=3", expect=2)
    contains(err, "did you mean 'gpu.peak_flops'")
    _, err = cli.run("resolve", "lab.x", "--variant", "lab.x=twise", expect=2)
    contains(err, "did you mean 'twice'")
    _, err = cli.run("resolve", "lab.x", "--assign", "lab.a", expect=2)
    contains(err, "expected NAME=VALUE")


@case
def usage(cli):
    cli.run(image=None, expect=2)
    cli.run("resolve", image=None, expect=2)
    cli.run("resolve", "x", "--no-such-flag", image=None, expect=2)
    cli.run("export", "svg", "x", image=None, expect=2)
    out, _ = cli.run("--help", image=None)
    contains(out, "scenario-report", "resolve", "trace", "export", "stats")
    out, _ = cli.run("resolve", "--help", image=None)
    contains(out, "--assign", "--variant", "--trace", "--missing", "--constraints", "--explain-selection", "--check-overrides",
             "--fail-on-violated-constraints", "--json", "--preset", "--image")
    _, err = cli.run("stats", "--image", "/nonexistent.gsimg", image=None, expect=2)
    contains(err, "cannot find the registry image")


# ---- presets from files and directories

@case
def preset_files(cli):
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path
        good = write("rack.toml", 'extends = "demo_rack"\n[assign]\n"cluster.rack.n_nodes" = 18\n')
        # extends finds demo_rack through --presets / GSTACK_PRESETS, not next to this file
        presets = os.path.join(HERE, "..", "..", "presets")
        j = cli.json("resolve", "cluster.rack.peak_flops", "--preset", good, "--presets", presets)
        close(j["value"], 18 * 8 * 15e15, "layered rack")
        j = cli.json("resolve", "cluster.rack.peak_flops", "--preset", "demo_rack", env={"GSTACK_PRESETS": presets})
        close(j["value"], 1.08e18, "demo rack via GSTACK_PRESETS")
        bad_dim = write("bad_dim.toml", '[assign]\n"gpu.peak_flops" = "15 PW"\n')
        _, err = cli.run("resolve", "gpu.peak_flops", "--preset", bad_dim, expect=2)
        contains(err, "bad_dim.toml:2:", "given in PW (", "measured in FLOP/s (")
        malformed = write("malformed.toml", 'name = "x"\n\n[assign\n')
        _, err = cli.run("resolve", "gpu.peak_flops", "--preset", malformed, expect=2)
        contains(err, "malformed.toml:3: malformed TOML")
        unknown = write("unknown.toml", '[assign]\n"gpu.peak_flop" = 1\n')
        _, err = cli.run("scenario-report", unknown, expect=2)
        contains(err, "unknown.toml:2: unknown variable in [assign] 'gpu.peak_flop'; did you mean 'gpu.peak_flops'")


@case
def image_from_environment(cli):
    j = cli.json("resolve", "cluster.rack.peak_flops", "--preset", "demo_rack", image=None, env={"GSTACK_IMAGE": cli.test_image})
    close(j["value"], 1.08e18, "rack via GSTACK_IMAGE")


# ---- trace

@case
def trace_text(cli):
    out, _ = cli.run("trace", "econ.run.power_cost", "--preset", "dense_training_cost_fixture")
    cli.golden("trace_text", out)


@case
def trace_json(cli):
    j = cli.json("trace", "cluster.rack.peak_flops", "--preset", "demo_rack", "--assign", "cluster.rack.n_nodes=2",
                 "--variant", "training.flops_per_step=dense")
    tree = j["tree"]
    close(tree["value"], 2 * 8 * 15e15, "root value")
    check(tree["relation"]["name"] == "fixture.rack_peak_flops", "root relation")
    kids = {c["variable"]: c for c in tree["children"]}
    check(kids["cluster.rack.n_nodes"]["source"] == "assigned", "assigned child")
    grandchildren = {c["variable"]: c for c in kids["cluster.node.peak_flops"]["children"]}
    close(grandchildren["gpu.peak_flops"]["value"], 15e15, "grandchild")
    j = cli.json("trace", "cluster.rack.peak_flops")
    check(not j["complete"] and j["tree"]["value"] is None, "nothing assigned")
    check("cluster.node.peak_flops" in j["tree"]["formula"], "formula in the boundary")
    leaf = {c["variable"]: c for c in j["tree"]["children"]}["cluster.rack.n_nodes"]
    check(leaf["source"] == "missing" and "root input" in leaf["status"], "missing leaf")


# ---- scenario reports

@case
def scenario_report_text(cli):
    out, _ = cli.run("scenario-report", "dense_training_cost_fixture", "--check-overrides")
    cli.golden("scenario_report_text", out)


@case
def scenario_report_targets(cli):
    j = cli.json("scenario-report", "demo_rack", "--target", "rack=cluster.rack.peak_flops", "--target", "cluster.node.power")
    check([t["label"] for t in j["targets"]] == ["rack", "power"], "labels")
    close(j["targets"][0]["value"], 1.08e18, "rack")
    check(j["targets"][1]["status"] == "issues" and j["status"] == "issues", "power has missing inputs")
    check(j["issue_count"] == len(j["targets"][1]["missing"]), "issue count")
    j = cli.json("scenario-report", "demo_rack", "--assign", "cluster.rack.n_nodes=1", "--variant", "lab.x=twice")
    close(j["targets"][0]["value"], 1.2e17, "override from the command line")
    _, err = cli.run("scenario-report", "demo_rack", "--target", "=x", expect=2)
    contains(err, "bad --target")
    cli.run("scenario-report", "demo_rack", "--assign", "gpu.peak_flops=-1", "--fail-on-violated-constraints", expect=1)


# ---- export

@case
def export_dot(cli):
    out, _ = cli.run("export", "dot", "cluster.rack.peak_flops")
    cli.golden("export_dot", out)
    j = cli.json("export", "dot", "cluster.rack.peak_flops")
    check(j["format"] == "dot" and j["dot"] == out, "DOT wrapped in JSON")


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
def root_debt_text(cli):
    out, _ = cli.run("root-debt", "--limit", "8")
    cli.golden("root_debt_text", out)
    out, _ = cli.run("root-debt", "--families", "--limit", "4", "--include-constraints")
    cli.golden("root_debt_families", out)


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
def root_debt_influence_text(cli):
    out, _ = cli.run("root-debt", "--preset", "dense_training_cost_fixture", "--target", "econ.cost.per_token", "--limit", "12")
    cli.golden("root_debt_influence_text", out)
    out, _ = cli.run("root-debt", "--target", "econ.cost.per_token", "--assign", "training.total_tokens=1e7", "--families")
    contains(out, "Influence on econ.cost.per_token under (command line)\n", "  value          not determined (")


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
def root_debt_bad_input(cli):
    _, err = cli.run("root-debt", "--preset", "dense_training_cost_fixture", expect=2)
    contains(err, "pass --target NAME")
    _, err = cli.run("root-debt", "--target", "econ.cost.per_tokn", expect=2)
    contains(err, "did you mean 'econ.cost.per_token'")
    cli.run("root-debt", "--limit", "x", expect=2)


@case
def verify_fast(cli):
    with tempfile.TemporaryDirectory() as d:
        out, _ = cli.run("verify", "--presets", d)
        cli.golden("verify_fast", normalised_time(out).replace(d, "<presets>"))
        j = cli.json("verify", "--profile", "full", "--presets", d)
    check(j["passed"] and j["failed"] == 0, "the test model passes")
    checks = {c["name"]: c for c in j["checks"]}
    check(list(checks) == ["cycles", "units", "references", "symbols", "trivial", "constants", "freshness", "presets", "jit"],
          "check order")
    check(checks["cycles"]["status"] == "warn", "the variant-closed cycle is a warning")
    check(checks["jit"]["status"] == "ok" and " 0 disagreeing" in checks["jit"]["summary"], "JIT agrees with GiNaC")
    cli.run("verify", "--profile", "fastest", expect=2)


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
def scenario_audit_text(cli):
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        write("full.toml", 'source = "hand"\n[assign]\n"lab.a" = "1 m"\n"lab.b" = "2 m"\n[targets]\nsum = "lab.sum"\n')
        write("packs/gap.toml", '[assign]\n"lab.a" = "1 m"\n[targets]\nsum = "lab.sum"\nuser = "lab.x_user"\n')
        write("bare.toml", 'source = "hand"\n[assign]\n"lab.a" = "1 m"\n')
        write("sim/run.toml", 'schema = "gpu-stack.sim-scenario.v1"\n')
        out, _ = cli.run("scenario-audit", "--presets", d, "--missing-families")
        cli.golden("scenario_audit_text", out)
        j = cli.json("scenario-audit", "--presets", d)
        check(j["preset_count"] == 3 and j["ok"] == 1 and j["with_issues"] == 1 and j["no_targets"] == 1, "counts")
        gap = [p for p in j["presets"] if p["preset"] == "packs/gap"][0]
        check(not gap["sourced"] and gap["assignments"] == 1, "gap preset")
        fams = {(f["family"], f["boundary_category"]): f["variables"] for f in gap["missing_families"]}
        check(fams == {("lab", "primitive-root"): ["lab.b"], ("lab", "variant-family"): ["lab.x"]}, f"missing families {fams}")
        cli.run("scenario-audit", "--presets", d, "--fail-on-issues", expect=1)
        cli.run("scenario-audit", "--presets", d, "--preset", "full", "--fail-on-issues")
        j = cli.json("scenario-audit", "--presets", d, "--preset", "full", "--target", "total=lab.sum")
        check(j["presets"][0]["targets"][0]["label"] == "total", "--target relabels")
        close(j["presets"][0]["targets"][0]["value"], 3.0, "sum")
        _, err = cli.run("scenario-audit", "--presets", d, "--preset", "nope", expect=2)
        contains(err, "unknown preset 'nope'")


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


@case
def next_work_text(cli):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "gap.toml"), "w") as f:
            f.write('[assign]\n"lab.a" = "1 m"\n[targets]\nsum = "lab.sum"\n')
        out, _ = cli.run("next-work", "--presets", d, "--preset", "gap", "--target", "lab.sum", "--limit", "1")
        contains(out, "Next work under gap for lab.sum\n", "  1. [blocking-input] Give lab.b a sourced value\n",
                 "     command: gpu-stack resolve lab.sum --preset gap --missing\n")
        _, err = cli.run("next-work", "--presets", d, "--preset", "gap", "--target", "lab.summ", expect=2)
        contains(err, "did you mean 'lab.sum'")


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
def validate_text_and_gate(cli):
    out, _ = cli.run("validate", "--runs", RUNS, "--max-median-ape", "7", image="model")
    contains(out, "Rows not built (", "Summary: absolute percentage error of the prediction", "  throughput ")
    _, err = cli.run("validate", "--runs", RUNS, "--max-median-ape", "0.001", image="model", expect=1)
    contains(err, "tier-A throughput median APE")


@case
def validate_bad_input(cli):
    _, err = cli.run("validate", "--runs", "/nonexistent/runs.csv", image="model", expect=2)
    contains(err, "cannot read")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "runs.csv")
        with open(path, "w") as f:
            f.write("name,tier\nx,A\n")
        _, err = cli.run("validate", "--runs", path, image="model", expect=2)
        contains(err, "'id' column")
        with open(path, "w") as f:
            f.write('id,tier,hardware,notes\nq1,A,"A100, 80GB","quoted, with a comma"\n')
        j = cli.json("validate", "--runs", path, image="model")
        check(len(j["rows"]) == 1 and not j["rows"][0]["built"], "the quoted row is read and listed as not built")
        contains(j["rows"][0]["reason"], "reports nothing")


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
