# Cases for the reference-parity resolver options (issue 19 item 2), on the small test model
# (tests/unit/runtime/data/20_lab.gstack): --solve-systems, --fallback-on-violated-validity and
# --missing-families. Run by run_cli_tests.py.


@case
def resolve_solves_a_small_system(cli):
    # lab.c1 = lab.c2 + lab.a (variant loop) and lab.c2 = 2 lab.c1: with a = 3 m, c1 = -a and c2 = -2a.
    args = ("resolve", "lab.c2", "--variant", "lab.c1=loop", "--assign", "lab.a=3 m")
    j = cli.json(*args, "--solve-systems")
    check(j["complete"], "the system closes the value")
    close(j["value"], -6.0, "c2 = -2 a")
    steps = {s["variable"]: s for s in j["steps"]}
    close(steps["lab.c1"]["value"], -3.0, "c1 = -a")
    check(steps["lab.c1"].get("system_peers") == ["lab.c2"], "c1's step names its peer")
    check(steps["lab.c2"].get("system_peers") == ["lab.c1"], "c2's step names its peer")
    out, _ = cli.run(*args, "--solve-systems", "--trace")
    contains(out, "[system: lab.c2]", "[system: lab.c1]")
    # Without the option the cycle stays open: the answer names the missing member.
    j = cli.json(*args)
    check(not j["complete"], "without --solve-systems the cycle is a missing input")


@case
def resolve_solves_only_closed_systems(cli):
    # With the 'plain' variant there is no cycle at all, so the option changes nothing: c1 = a, c2 = 2a.
    j = cli.json("resolve", "lab.c2", "--variant", "lab.c1=plain", "--assign", "lab.a=3 m", "--solve-systems")
    close(j["value"], 6.0, "c2 = 2 a without a system")
    check(all("system_peers" not in s for s in j["steps"]), "no system step")
    # With the loop closed but lab.a unknown, the system has an unknown outside input: it stays missing.
    j = cli.json("resolve", "lab.c2", "--variant", "lab.c1=loop", "--solve-systems")
    check(not j["complete"] and [m["variable"] for m in j["missing"]] == ["lab.c1"], "an open input leaves the system unsolved")


@case
def resolve_falls_back_on_violated_validity(cli):
    # lab.vf: variant vf_exact (a + 1 m) and approx vf_approx (1.5 a, valid when regime > 10). With no
    # selector the approximation is used; at regime 2 its validity is violated.
    args = ("resolve", "lab.vf", "--assign", "lab.a=4 m", "--assign", "lab.regime=2")
    j = cli.json(*args)
    close(j["value"], 6.0, "without the option: the approximation, 1.5 a")
    check(j["violations"] == 1, "and its validity is reported violated")
    j = cli.json(*args, "--fallback-on-violated-validity")
    close(j["value"], 5.0, "with the option: the variant a + 1 m")
    step = [s for s in j["steps"] if s["variable"] == "lab.vf"][0]
    check(step.get("fallback_from") == "lab.vf_approx", "the step says what it replaced")
    check(j["violations"] == 0, "the fallback's own checks hold")
    out, _ = cli.run(*args, "--fallback-on-violated-validity", "--explain-selection")
    contains(out, "[fallback from lab.vf_approx]", "why: fallback from lab.vf_approx: its validity is violated")
    # Where the validity holds nothing switches.
    j = cli.json("resolve", "lab.vf", "--assign", "lab.a=4 m", "--assign", "lab.regime=20", "--fallback-on-violated-validity")
    close(j["value"], 6.0, "valid approximation kept")


@case
def resolve_groups_missing_inputs_by_family(cli):
    out, _ = cli.run("resolve", "lab.sum", "--missing-families")
    contains(out, "missing families:", "family=lab category=primitive-root count=2 names=lab.a, lab.b")


# ---- model content of issue 19 item 4, on the shipped model

def _parity_value(cli, target, *presets, assigns=()):
    argv = ["resolve", target]
    for p in presets:
        argv += ["--preset", p]
    for a in assigns:
        argv += ["--assign", a]
    j = cli.json(*argv, image="model")
    check(j["complete"], f"{target} resolves under {presets}")
    return j["value"]


@case
def economics_per_step_per_flop_and_markup(cli):
    total = _parity_value(cli, "econ.run.total_cost", "default")
    steps = _parity_value(cli, "training.n_steps", "default")
    flops = _parity_value(cli, "training.flops_per_step", "default")
    close(_parity_value(cli, "econ.cost.per_step", "default"), total / steps, "cost per step = total / steps")
    close(_parity_value(cli, "econ.cost.per_flop", "default"), total / (flops * steps), "cost per FLOP = total / model FLOPs")
    market = ("default", "market/h100_on_demand_2026")
    cost_hour = _parity_value(cli, "econ.gpu.cost_hour", *market)  # USD/s in SI
    rate = _parity_value(cli, "econ.job.cost_rate", *market)
    gpus = _parity_value(cli, "par.n_gpus", *market)
    close(cost_hour, rate / gpus, "all-in cost of an accelerator-second")
    rent = 2.49 / 3600  # the market preset's USD/h in SI
    close(_parity_value(cli, "econ.gpu.rental_markup", *market), rent / cost_hour, "markup = rent / all-in cost")
    site_gpus = _parity_value(cli, "cluster.site.n_gpus", *market)
    util = _parity_value(cli, "econ.cluster.utilization", *market)
    crf = _parity_value(cli, "econ.finance.crf_it", *market)
    year = 31557600.0
    close(_parity_value(cli, "econ.cluster.npv", *market), (rent - cost_hour) * site_gpus * util * year / crf, "NPV of the excess return")


@case
def serving_recovers_a_training_run(cli):
    layers = ("default", "serving/llama3_70b_8xh100_tp8")
    price = "serve.price.per_output_token=2 USD/Mtoken"
    total = _parity_value(cli, "econ.run.total_cost", *layers, assigns=(price,))
    cost = _parity_value(cli, "serve.cost.per_output_token", *layers, assigns=(price,))  # USD/token in SI
    tokens = _parity_value(cli, "serve.recovery.output_tokens", *layers, assigns=(price,))
    close(tokens, total / (2e-6 - cost), "tokens = run cost / margin per token")
    # A price below the serving cost never recovers the run: the constraint says so.
    j = cli.json("resolve", "serve.recovery.output_tokens", *sum((("--preset", p) for p in layers), ()),
                 "--assign", "serve.price.per_output_token=0.5 USD/Mtoken", image="model")
    check(any(c["name"].endswith("price_covers_serving_cost") and c["status"] == "violated" for c in j["constraints"]),
          "price below cost violates price_covers_serving_cost")


@case
def optimizer_update_rule_dynamics(cli):
    # Muon's quintic Newton-Schulz map, five times from 0.1 (computed in Python with the same coefficients).
    x = 0.1
    for _ in range(5):
        x = 3.4445 * x - 4.7750 * x ** 3 + 2.0315 * x ** 5
    close(_parity_value(cli, "opt.muon.ns_sigma_out", "packs/optimizer_muon_ns", assigns=("opt.muon.ns_sigma_in=0.1",)), x, "Newton-Schulz")
    # Adam at step 10 with the AdamW pack's betas 0.9 and 0.95.
    close(_parity_value(cli, "opt.adam.step_size_scale", "default", assigns=("opt.adam.step=10",)),
          (1 - 0.95 ** 10) ** 0.5 / (1 - 0.9 ** 10), "bias-corrected step size")
    close(_parity_value(cli, "opt.loss_scale.skipped_step_fraction", "default", assigns=("opt.loss_scale.enabled=1",)), 1 / 2001,
          "one skipped step per growth interval")
    close(_parity_value(cli, "opt.loss_scale.skipped_step_fraction", "default"), 0.0, "BF16: no loss scale, nothing skipped")


@case
def mfu_from_flops_and_sram_noise_margin(cli):
    achieved = _parity_value(cli, "training.achieved_flops", "default")
    gpus = _parity_value(cli, "par.n_gpus", "default")
    peak = _parity_value(cli, "gpu.peak_flops", "default")
    close(_parity_value(cli, "training.mfu_from_flops", "default"), achieved / (gpus * peak), "MFU from the model's FLOPs")
    # 0.75 V supply, cell ratio 2: 0.375 V - 0.25 V.
    check(abs(_parity_value(cli, "memcell.sram.snm_read", "default") - 0.125) <= 1e-12, "read SNM 0.125 V")
    j = cli.json("resolve", "memcell.sram.snm_read", "--preset", "default", "--assign", "memcell.sram.cell_ratio=1", image="model")
    check(any(c["name"].endswith("sram_read_stable") and c["status"] == "violated" for c in j["constraints"]),
          "a cell ratio of 1 leaves no read margin: sram_read_stable is violated")
