# Regression cases for misuse of the runtime commands (issue 11): each failed (crash, wrong answer with
# exit 0, or a file overwritten) before its fix. Run by run_cli_tests.py, whose helpers they use.

HARDEN_SIM = "presets/sim/llama3-405b-16k.toml"
HARDEN_UNCERTAIN = "dense_training_cost_uncertain"


@case
def sweep_of_an_input_outside_the_cone_is_a_note_not_a_crash(cli):
    """Varying an input the target does not read used to index past the program's inputs (a segfault)."""
    point = cli.json("resolve", "econ.cost.per_token", "--preset", "default", image="model")["value"]
    for engine in ("jit", "ginac"):
        out, err = cli.run("sweep", "econ.cost.per_token", "--preset", "default", "--vary", "gpu.power.idle=100,200",
                           "--engine", engine, "--json", image="model")
        j = json.loads(out)
        check(j["points"] == 2 and j["inputs_not_read"] == ["gpu.power.idle"], f"{engine}: {j}")
        close(j["targets"][0]["min"], point, f"{engine}: the target stays at its value under the preset")
        close(j["targets"][0]["max"], point, f"{engine}: the target stays at its value under the preset")
        contains(err, "note: gpu.power.idle does not affect econ.cost.per_token")


@case
def sweep_and_sampling_sizes_are_checked_before_work(cli):
    # 65536^4 = 2^64 points used to wrap to "0 points" with exit 0.
    axes = []
    for name in ("econ.job.capex_rate", "par.n_gpus", "econ.power.price_kwh_peak", "econ.power.price_kwh_offpeak"):
        axes += ["--vary", f"{name}=1..2:65536"]
    _, err = cli.run("sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", *axes, image="model", expect=2)
    contains(err, "more than 2^64 points", "--zip")
    _, err = cli.run("sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture",
                     "--vary", "econ.job.capex_rate=1..2:1e12", image="model", expect=2)
    contains(err, "more than a sweep can hold")
    # Zero samples used to print a 0 USD/token interval with exit 0.
    for cmd in ("uncertainty", "sensitivity"):
        _, err = cli.run(cmd, "econ.cost.per_token", "--preset", HARDEN_UNCERTAIN, "--samples", "0", image="model", expect=2)
        contains(err, "--samples")
        for threads in ("0", "100000", "-1"):
            _, err = cli.run(cmd, "econ.cost.per_token", "--preset", HARDEN_UNCERTAIN, "--threads", threads, image="model", expect=2)
            contains(err, "--threads")
    _, err = cli.run("sensitivity", "econ.cost.per_token", "--preset", HARDEN_UNCERTAIN, "--samples", "50000000",
                     image="model", expect=2)
    contains(err, "more than 100000000 evaluations", "(N x ")
    _, err = cli.run("sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--threads", "0",
                     "--vary", "econ.job.capex_rate=1,2", image="model", expect=2)
    contains(err, "--threads")


@case
def outputs_never_write_through_a_planted_symlink(cli):
    with tempfile.TemporaryDirectory() as d:
        victim = os.path.join(d, "victim.txt")
        with open(victim, "w") as f:
            f.write("precious\n")
        # The old temporary name <out>.tmp.<pid> cannot be predicted exactly; plant links for many pids.
        out = os.path.join(d, "cone.dot")
        for pid in range(os.getpid(), os.getpid() + 200):
            os.symlink(victim, f"{out}.tmp.{pid}")
        cli.run("export", "dot", "econ.cost.per_token", "-o", out, image="model")
        with open(out) as f:
            contains(f.read(), "digraph")
        # The target itself a link: refused, exit 2, the victim untouched.
        link = os.path.join(d, "link.csv")
        os.symlink(victim, link)
        _, err = cli.run("export", "json", "econ.cost.per_token", "-o", link, image="model", expect=2)
        contains(err, "symbolic link")
        _, err = cli.run("sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture",
                         "--vary", "econ.job.capex_rate=1,2", "--out", link, image="model", expect=2)
        contains(err, "symbolic link")
        art = os.path.join(d, "artifact.json")
        os.symlink(victim, art)
        _, err = cli.run("experiment-run", "E001", "--scenario", "experiments/E001/scenario-screening-v1.json",
                         "--output", art, image=None, expect=2)
        contains(err, "symbolic link")
        with open(victim) as f:
            check(f.read() == "precious\n", "the victim is untouched")


def _site(cli, out, *extra, expect=0):
    return cli.run("export", "site", "--out", out, "--preset", "dense_training_cost_fixture", *extra, image="model", expect=expect)


def _site_experiments(out):
    with open(os.path.join(out, "data", "experiments.json")) as f:
        return {e["id"]: e for e in json.load(f)["experiments"]}


@case
def site_export_is_all_or_nothing_and_trusts_only_sealed_artifacts(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "site")
        runs = os.path.join(d, "runs.csv")
        with open(runs, "w") as f:
            f.write("id\n")
        # A forged artifact: a verdict of "pass" under a seal that does not match its content.
        forged_dir = os.path.join(d, "forged")
        os.makedirs(forged_dir)
        protocol_hash = cli.json("experiment-protocol", "E003", image=None)["protocol_hash"]
        forged = {"schema": "experiment-run.v1", "experiment_id": "E003", "protocol_hash": protocol_hash,
                  "verdict": "pass", "conclusion": "forged", "artifact_sha256": "0" * 64, "falsifiers": []}
        with open(os.path.join(forged_dir, "E003-forged.json"), "w") as f:
            json.dump(forged, f)
        _site(cli, out, "--runs", runs, "--artifacts", forged_dir)
        e3 = _site_experiments(out)["E003"]
        check(any(a["conclusion"] == "forged" and not a["seal_valid"] for a in e3["artifacts"]), "the forged artifact is listed, marked")
        check(e3["verdict"] == "not run", f"a forged artifact never becomes the headline verdict: {e3['verdict']}")
        # Rules print their operator and no "null" upper threshold.
        for e in _site_experiments(out).values():
            for f in e.get("protocol", {}).get("falsifiers", []):
                check(f["op"] != "", f"{e['id']} {f['falsifier_id']}: operator shown")
                check(f.get("upper_threshold", 0) is not None, f"{e['id']} {f['falsifier_id']}: no null upper threshold")
        with open(os.path.join(out, "index.html")) as f:
            index = f.read()
        # A bad later argument leaves the old site exactly as it was, with no temporary folder beside it.
        before = sorted(os.listdir(d))
        _, err = _site(cli, out, "--runs", runs, "--preset", "no_such_preset", expect=2)
        contains(err, "no_such_preset")
        _, err = _site(cli, out, "--runs", os.path.join(d, "missing.csv"), expect=2)
        contains(err, "missing.csv")
        _, err = _site(cli, out, "--runs", runs, "--artifacts", os.path.join(d, "nowhere"), expect=2)
        contains(err, "nowhere")
        check(sorted(os.listdir(d)) == before, f"nothing left beside the site: {sorted(os.listdir(d))}")
        with open(os.path.join(out, "index.html")) as f:
            check(f.read() == index, "the old site is intact")
        # A second export replaces the site whole: a stale file of the old one does not survive.
        with open(os.path.join(out, "data", "stale.json"), "w") as f:
            f.write("{}")
        _site(cli, out, "--runs", runs)
        check(not os.path.exists(os.path.join(out, "data", "stale.json")), "the site is swapped in whole")
        check(sorted(os.listdir(d)) == before, "the old tree is removed")
        # A folder that is not a site is never replaced; a link as --out is refused.
        other = os.path.join(d, "home")
        os.makedirs(other)
        with open(os.path.join(other, "notes.txt"), "w") as f:
            f.write("mine\n")
        _, err = _site(cli, other, "--runs", runs, expect=2)
        contains(err, "does not hold a site")
        check(os.listdir(other) == ["notes.txt"], "the user's folder is untouched")
        os.symlink(out, os.path.join(d, "link"))
        _, err = _site(cli, os.path.join(d, "link"), "--runs", runs, expect=2)
        contains(err, "symbolic link")


@case
def simulate_has_work_caps(cli):
    _, err = cli.run("simulate", HARDEN_SIM, "--max-gpu-days", "1000", image=None, expect=2)
    contains(err, "GPU-days", "16896 GPUs", "--max-gpu-days")
    _, err = cli.run("simulate", HARDEN_SIM, "--replicas", "1000", image=None, expect=2)
    contains(err, "work cap")
    _, err = cli.run("simulate", HARDEN_SIM, "--max-events", "1000", image=None, expect=2)
    contains(err, "stopped after 1000 events", "--max-events")
    for bad in (["--replicas", "0"], ["--replicas", "4294967295"], ["--threads", "0"], ["--threads", "99999"]):
        cli.run("simulate", HARDEN_SIM, *bad, image=None, expect=2)


@case
def missing_inputs_name_every_unknown_of_the_formula(cli):
    # The formula held opt.muon.ns_iterations, but the list named only opt.muon.matrix_fraction.
    j = cli.json("resolve", "opt.flops_per_param", "--variant", "opt.flops_per_param=muon", "--assign", "arch.d_model=8192",
                 "--assign", "arch.d_ffn=28672", "--assign", "opt.flops.basic_op=1", "--assign", "opt.flops.special_op=1",
                 image="model")
    names = sorted(m["variable"] for m in j["missing"])
    check(names == ["opt.muon.matrix_fraction", "opt.muon.ns_iterations"], f"missing {names}")


@case
def calibrate_refuses_to_overwrite_without_force(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fitted.toml")
        with open(out, "w") as f:
            f.write("# hand-edited\n")
        _, err = cli.run("calibrate", "--out", out, image="model", expect=2)
        contains(err, "exists", "--force")
        with open(out) as f:
            check(f.read() == "# hand-edited\n", "the existing preset is untouched")
        # --runs defaults to the published runs shipped in data/runs.
        cli.run("calibrate", "--out", out, "--force", image="model")
        with open(out) as f:
            contains(f.read(), "calibration-runs.csv", "[assign]")


@case
def a_huge_formula_is_capped_in_text_output(cli):
    # This preset leaves econ.cost.per_token a formula of about 1.9 MB in its missing inputs.
    out, _ = cli.run("resolve", "econ.cost.per_token", "--preset", "cluster/storage_tectonic", image="model")
    formula = [line for line in out.splitlines() if line.startswith("  formula:")]
    check(len(formula) == 1 and len(formula[0]) < 600, f"formula line of {len(formula[0]) if formula else 0} characters")
    contains(formula[0], "characters in all; --json prints the whole formula")
    j = cli.json("resolve", "econ.cost.per_token", "--preset", "cluster/storage_tectonic", image="model")
    check(len(j["formula"]) > 100000, "JSON keeps the whole formula")
