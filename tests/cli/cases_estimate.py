import csv  # noqa: E402  (the cases run in run_cli_tests.py's namespace)

# `gpu-stack estimate` (issue 19 item 1): the quick calculator, checked against hand computations of
# 6 N D / (peak x MFU x GPUs) and the stated assumptions of presets/estimate/base.toml. Run by
# run_cli_tests.py, whose helpers they use.

EST_RUN = ["estimate", "--params", "70B", "--tokens", "15T", "--gpu", "h100", "--gpus", "2048"]
EST_H100_PEAK = 989.4e12   # H100 SXM datasheet dense BF16; the model derives 989.43 TFLOP/s from SMs and clock
EST_NODE_RATIO = 1.38      # presets/estimate/base.toml (Newkirk et al. 2025)
EST_PUE = 1.2              # presets/estimate/base.toml
EST_TDP = 700.0            # presets/hardware/h100_sxm.toml


def est_within(actual, expected, rel, what):
    err = abs(actual - expected) / max(abs(expected), 1e-300)
    check(err <= rel, f"{what}: {actual!r} differs from {expected!r} by {err:.3g} (> {rel})")


def est_results(j):
    return {r["label"]: r for r in j["results"]}


def est_h100_median_mfu():
    """The median MFU of the H100 SXM rows of the calibration set, computed here from the CSV."""
    path = os.path.join(HERE, "..", "..", "data", "runs", "calibration-runs.csv")
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f)]
    mfus = sorted(float(r["mfu_pct"]) / 100 for r in rows if r["mfu_pct"] and "h100" in r["hardware"].lower()
                  and "pcie" not in r["hardware"].lower() and "nvl" not in r["hardware"].lower())
    n = len(mfus)
    return (mfus[n // 2] if n % 2 else (mfus[n // 2 - 1] + mfus[n // 2]) / 2), mfus


@case
def estimate_matches_six_n_d_by_hand(cli):
    j = cli.json(*EST_RUN, "--mfu", "0.4", "--price-per-gpu-hour", "2.5", "--tariff", "0.08", image="model")
    r = est_results(j)
    days = 6 * 70e9 * 15e12 / (EST_H100_PEAK * 0.4 * 2048) / 86400
    check(abs(days - 89.96) < 0.01, f"hand value {days}")
    # 1e-4: the model's peak (132 SMs x 4 TC x 1024 FLOP x 1.83 GHz = 989.43 TFLOP/s) vs the datasheet's 989.4.
    est_within(r["days"]["value_display"], days, 1e-4, "days")
    est_within(r["peak per GPU"]["value"], EST_H100_PEAK, 1e-4, "peak")
    est_within(r["model FLOPs"]["value"], 6 * 70e9 * 15e12, 1e-12, "6 N D")
    gpu_hours = 2048 * days * 24
    est_within(r["GPU-hours"]["value_display"], gpu_hours, 1e-4, "GPU-hours")
    mwh = 2048 * EST_TDP * EST_NODE_RATIO * EST_PUE * days * 24 / 1e6
    est_within(r["energy"]["value_display"], mwh, 1e-4, "energy MWh")
    est_within(r["electricity cost"]["value"], mwh * 1000 * 0.08, 1e-4, "electricity cost")
    est_within(r["accelerator cost"]["value"], gpu_hours * 2.5, 1e-4, "accelerator cost")
    total = gpu_hours * 2.5 + mwh * 1000 * 0.08
    est_within(r["total cost"]["value"], total, 1e-4, "total cost")
    est_within(r["cost per million tokens"]["value_display"], total / 15e6, 1e-4, "USD per million tokens")
    check(r["cost per million tokens"]["unit"] == "USD/Mtoken", "unit")
    # MFU, price and tariff were stated exactly: only the PUE (1.10 .. 1.58) spreads the energy.
    check("interval" not in r["days"], "an exact MFU leaves the duration a point")
    e = r["energy"]["interval"]
    check(e["p5"] < r["energy"]["value"] < e["p95"], f"energy interval {e}")
    est_within(e["p95"] / e["p5"], 1.58 / 1.10, 0.15, "the energy spread follows the PUE range")
    check(j["mfu"]["origin"] == "--mfu" and j["mfu"]["low"] is None, "MFU from the command line")
    # --pue replaces the base preset's value and range: with every input exact, no interval is left.
    j = cli.json(*EST_RUN, "--mfu", "0.4", "--price-per-gpu-hour", "2.5", "--tariff", "0.08", "--pue", "1.1", image="model")
    r = est_results(j)
    est_within(r["energy"]["value_display"], mwh / EST_PUE * 1.1, 1e-4, "energy at PUE 1.1")
    check(all("interval" not in x for x in j["results"]), "exact inputs give point values")
    _, err = cli.run(*EST_RUN, "--mfu", "0.4", "--pue", "0.9", image="model", expect=2)
    contains(err, "--pue")


@case
def estimate_assumes_the_median_mfu_of_the_calibration_rows(cli):
    median, mfus = est_h100_median_mfu()
    check(len(mfus) >= 3, f"rows {mfus}")
    j = cli.json(*EST_RUN, image="model")
    est_within(j["mfu"]["value"], median, 1e-12, "median MFU")
    est_within(j["mfu"]["low"], mfus[0], 1e-12, "lowest row")
    est_within(j["mfu"]["high"], mfus[-1], 1e-12, "highest row")
    check(len(j["mfu"]["rows"]) == len(mfus), "every row named")
    r = est_results(j)
    days = 6 * 70e9 * 15e12 / (EST_H100_PEAK * median * 2048) / 86400
    est_within(r["days"]["value_display"], days, 1e-4, "days at the median MFU")
    iv = r["days"]["interval"]
    check(iv["p5"] < r["days"]["value"] < iv["p95"], f"the point lies inside its interval: {iv}")
    # Bounds: the interval cannot leave the duration at the lowest and highest MFU of the rows.
    check(iv["p95"] <= days * 86400 * median / mfus[0] * (1 + 1e-9), "p95 within the slowest row")
    check(iv["p5"] >= days * 86400 * median / mfus[-1] * (1 - 1e-9), "p5 within the fastest row")
    # No price: the bill of accelerator time is a named missing input, never a silent zero.
    check(r["total cost"]["value"] is None and r["total cost"]["missing"] == ["estimate.price_per_gpu_hour"], str(r["total cost"]))
    check(r["electricity cost"]["value"] > 0, "the electricity bill is still priced by the base tariff")
    out, _ = cli.run(*EST_RUN, image="model")
    contains(out, "Quick estimate: 70B parameters, 15T tokens, 2048 x h100 (preset hardware/h100_sxm)",
             f"MFU assumed : {100 * median:.1f}%", "calibration-runs.csv on h100", "days ",
             "total cost               needs estimate.price_per_gpu_hour", "90%: ")


@case
def estimate_ranges_and_accelerator_names(cli):
    # A price range is sampled uniformly: the accelerator bill's interval lies inside GPU-hours x the ends.
    j = cli.json("estimate", "--params", "7B", "--tokens", "2T", "--gpu", "A100-80GB", "--gpus", "1K", "--mfu", "0.5",
                 "--price-per-gpu-hour", "1.5..2.5", "--tariff", "0.1", image="model")
    check(j["accelerator"] == "a100" and j["hardware_preset"] == "hardware/a100_sxm_80gb", "alias resolved")
    check(j["gpus"] == 1000, "1K is 1,000 accelerators")
    j2 = cli.json("estimate", "--params", "2.5K", "--tokens", "1.5M", "--gpu", "h100-sxm", "--gpus", "8", "--mfu", "0.5", image="model")
    check(j2["params"] == 2500 and j2["tokens"] == 1.5e6 and j2["accelerator"] == "h100", "2.5K and 1.5M parse; alias h100-sxm")
    r = est_results(j)
    days = 6 * 7e9 * 2e12 / (312e12 * 0.5 * 1000) / 86400
    est_within(r["days"]["value_display"], days, 5e-4, "A100: 312 TFLOP/s datasheet, the model 311.87 (4.2e-4 apart)")
    gh = r["GPU-hours"]["value_display"]
    iv = r["accelerator cost"]["interval"]
    check(gh * 1.5 <= iv["p5"] < iv["p95"] <= gh * 2.5, f"{iv} within {gh * 1.5} .. {gh * 2.5}")
    est_within(r["accelerator cost"]["value"], gh * 2.0, 1e-9, "a range's point is its middle")


@case
def estimate_bad_input_exits_2(cli):
    base = ["estimate", "--params", "7B", "--tokens", "1T", "--gpu", "h100", "--gpus", "8"]
    for args, message in [
        (["--params", "0"], "expected a positive count"),
        (["--params", "-5B"], "expected a positive count"),
        (["--tokens", "7X"], "expected a positive count"),
        (["--tokens", "nan"], "expected a positive count"),
        (["--gpus", "8.5"], "whole number of accelerators"),
        (["--gpu", "h1000"], "did you mean 'h100'"),
        (["--mfu", "1.5"], "at most 1"),
        (["--mfu", "0"], "above 0"),
        (["--tariff", "abc"], "is not a number"),
        (["--tariff", "-1"], "at least 0"),
        (["--price-per-gpu-hour", "3..2"], "low end of a range"),
        (["--runs", "/nonexistent/runs.csv"], "cannot read"),
    ]:
        argv = list(base)
        i = argv.index(args[0]) if args[0] in argv else -1
        if i >= 0:
            argv[i + 1] = args[1]
        else:
            argv += args
        _, err = cli.run(*argv, image="model", expect=2)
        contains(err, message)
    # An accelerator without published runs has no MFU to assume: the user must state one.
    _, err = cli.run("estimate", "--params", "7B", "--tokens", "1T", "--gpu", "tpu-v4", "--gpus", "8", image="model", expect=2)
    contains(err, "pass --mfu")
    cli.run("estimate", "--params", "7B", "--tokens", "1T", "--gpu", "tpu-v4", "--gpus", "8", "--mfu", "0.5", image="model")


@case
def readme_first_screen_estimate_is_the_live_output(cli):
    """The README's one-line estimate quotes real output: every quoted line must be printed as it is."""
    with open(os.path.join(HERE, "..", "..", "README.md")) as f:
        readme = f.read()
    start = readme.index("gpu-stack estimate --params 70B")
    closing = readme.index("```\n", start)                      # end of the command's block
    opening = readme.index("```\n", closing + 4)               # the output's block
    block = readme[opening + 4:readme.index("```", opening + 4)]
    quoted = [line for line in block.splitlines() if line.strip() and line.strip() != "..."]
    check(len(quoted) >= 5, f"README block: {quoted}")
    argv = readme[start:readme.index("\n", start)].split()[1:]
    out, _ = cli.run(*argv, image="model")
    for line in quoted:
        contains(out, line + "\n")
