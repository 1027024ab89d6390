# Golden cases for sweep, uncertainty and sensitivity (run by run_cli_tests.py, whose helpers they use).

UNCERTAIN = "dense_training_cost_uncertain"


@case
def sweep_jit_matches_resolve(cli):
    """Every swept point equals what resolve gives with the same assignment."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "sweep.json")
        j = cli.json("sweep", "econ.cost.per_token", "training.tokens_per_sec", "--preset", "dense_training_cost_fixture",
                     "--vary", "econ.job.capex_rate=0,10,20", "--vary", "par.n_gpus=8,16", "--out", out, image="model")
        check(j["points"] == 6 and j["engine"] == "jit" and j["nonfinite"] == 0, f"summary {j}")
        check(j["evaluations_per_second"] > 0 and "seconds" in j, "throughput reported")
        with open(out) as f:
            rows = json.load(f)["rows"]
        check(len(rows) == 6, "six rows")
        # The full grid varies the last axis fastest.
        check([r["par.n_gpus"] for r in rows] == [8, 16] * 3, "grid order")
        for r in rows[::2] + rows[1::2]:
            ref = cli.json("resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture",
                           "--assign", f"econ.job.capex_rate={r['econ.job.capex_rate']} USD/s",
                           "--assign", f"par.n_gpus={r['par.n_gpus']}", image="model")
            close(r["econ.cost.per_token"], ref["value"], f"point {r}")
    # By hand: capex 0 and 8 GPUs leaves only the power cost, 7.8e-11 USD/token.
    close(rows[0]["econ.cost.per_token"], 7.8e-11, "capex 0, 8 GPUs")


@case
def sweep_zip_ginac_and_csv(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "sweep.csv")
        j = cli.json("sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--zip", "--engine", "ginac",
                     "--vary", "econ.job.capex_rate=0,20", "--vary", "par.n_gpus=8,8", "--out", out, image="model")
        check(j["points"] == 2 and j["engine"] == "ginac", f"summary {j}")
        with open(out) as f:
            lines = f.read().splitlines()
        # Columns in the units of --vary (here the declared ones) and targets in their declared units.
        check(lines[0] == "econ.job.capex_rate[USD/s],par.n_gpus[GPUs],econ.cost.per_token[USD/token]", lines[0])
        close(float(lines[1].split(",")[2]), 7.8e-11, "zip row 1")
        close(float(lines[2].split(",")[2]), 3.000078e-06, "zip row 2")
        check(lines[2].split(",")[:2] == ["20", "8"], lines[2])


@case
def sweep_specs_with_units_and_errors(cli):
    # 100 USD/(MW*h) is 0.1 USD/(kW*h): ranges and log ranges take a unit after a space.
    j = cli.json("sweep", "econ.run.power_cost", "--preset", "dense_training_cost_fixture",
                 "--vary", "econ.power.price_kwh_peak=100..400:log:3 USD/(MW*h)", image="model")
    check(j["points"] == 3, "three points")
    # power cost = 5200 W x 1.5 s x price; 100 USD/MWh = 1e-4 USD/Wh -> 7800 J = 2.1667e-3 kWh -> 2.1667e-4 USD
    close(j["targets"][0]["min"], 5200 * 1.5 / 3.6e6 * 0.1, "cheapest point")
    close(j["targets"][0]["max"], 5200 * 1.5 / 3.6e6 * 0.4, "dearest point")
    _, err = cli.run("sweep", "econ.cost.per_token", "--preset", "dense_training_cost_fixture",
                     "--vary", "econ.job.capex_rate=5 kW", image="model", expect=2)
    contains(err, "USD/s")
    _, err = cli.run("sweep", "econ.cost.per_token", "--vary", "econ.job.capex_rate=1,2", image="model", expect=2)
    contains(err, "leaves inputs missing", "in all)")


@case
def uncertainty_seeded_and_interval(cli):
    a = cli.json("uncertainty", "econ.cost.per_token", "--preset", UNCERTAIN, "--samples", "20000", "--seed", "3", image="model")
    b = cli.json("uncertainty", "econ.cost.per_token", "--preset", UNCERTAIN, "--samples", "20000", "--seed", "3", image="model")
    check(a == {**b, "seconds": a["seconds"]}, "same seed, same result")
    check(a["samples"] == 20000 and a["nonfinite"] == 0, "sample count")
    check(a["p5"] < a["median"] < a["p95"], "ordered percentiles")
    # Cost per token is (capex x 1.5 s + power cost) / 1e7 with capex ~ triangular(16, 20, 30) USD/s:
    # its mean is (16+20+30)/3 = 22 USD/s, so the mean cost is about 22 x 1.5 / 1e7 = 3.3e-6 USD/token.
    check(abs(a["mean"] / 3.3e-6 - 1) < 0.01, f"mean {a['mean']}")
    check(sum(a["histogram"]["counts"]) == 20000, "histogram holds every sample")
    r = cli.json("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, image="model")
    check(r["interval"]["p5"] < r["value"] < r["interval"]["p95"], "resolve shows an interval around the point value")
    out, _ = cli.run("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, image="model")
    contains(out, "90% interval:")
    _, err = cli.run("uncertainty", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", image="model", expect=2)
    contains(err, "[uncertainty]")


@case
def uncertainty_streaming_matches_the_sample_array(cli):
    # The streaming summary re-draws the same seeded samples and keeps none: its order statistics and
    # histogram are the sample array's exactly; mean and sd are sums in another order (1e-12).
    args = ("uncertainty", "econ.cost.per_token", "--preset", UNCERTAIN, "--samples", "30000", "--seed", "5")
    held = cli.json(*args, image="model")
    streamed = cli.json(*args, "--streaming", image="model")
    check(held["summary"] == "selection" and streamed["summary"] == "streaming", "summary method reported")
    for key in ("p5", "median", "p95", "min", "max", "samples", "nonfinite", "histogram"):
        check(streamed[key] == held[key], f"{key}: {streamed[key]} vs {held[key]}")
    for key in ("mean", "sd"):
        check(abs(streamed[key] / held[key] - 1) < 1e-12, f"{key}: {streamed[key]} vs {held[key]}")


@case
def evaluator_tiers_give_the_same_interval(cli):
    # resolve's interval: 4096 randomized-QMC points (8 shifted Halton sets); the reference interpreter
    # and the JIT evaluate the same cone, so the interval agrees to 1e-12. 4096 rows are below the
    # crossover: auto interprets, and the answer states its method and each percentile's standard error.
    a = cli.json("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, "--evaluator", "interpreter", image="model")
    b = cli.json("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, "--evaluator", "jit", image="model")
    c = cli.json("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, image="model")
    for key in ("p5", "median", "p95"):
        check(abs(a["interval"][key] / b["interval"][key] - 1) < 1e-12, f"{key}: {a['interval'][key]} vs {b['interval'][key]}")
    check(a["interval"] == c["interval"], "auto interprets 4096 rows")
    iv = c["interval"]
    check(iv["samples"] == 4096 and iv["replicates"] == 8 and iv["method"] == "rqmc-halton", f"method stated: {iv}")
    for key in ("p5", "median", "p95"):
        se = iv["standard_error"][key]
        check(0 < se < 0.02 * abs(iv[key]), f"standard error of {key}: {se}")
    out, _ = cli.run("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, image="model")
    contains(out, "4096 randomized Halton samples in 8 shifts; standard error")
    _, err = cli.run("resolve", "econ.cost.per_token", "--preset", UNCERTAIN, "--evaluator", "llvm", image="model", expect=2)
    contains(err, "--evaluator")


@case
def sensitivity_ranks_capex_first(cli):
    j = cli.json("sensitivity", "econ.cost.per_token", "--preset", UNCERTAIN, "--samples", "20000", image="model")
    check(j["inputs"][0]["name"] == "econ.job.capex_rate", "capex dominates")
    # At the inputs' means capex costs 22 USD/s x 1.5 s = 33 USD of 33.00078 USD: elasticity 33/33.00078.
    check(abs(j["inputs"][0]["elasticity"] - 33 / 33.00078) < 1e-6, f"elasticity {j['inputs'][0]['elasticity']}")
    check(j["inputs"][0]["total_order"] > 0.95, "total-order index of capex")
    check(all(i["total_order"] < 0.01 for i in j["inputs"][1:]), "tariffs barely matter in this fixture")


@case
def stats_reports_headline_coverage(cli):
    j = cli.json("stats", image="model")
    check(j["headline"]["targets"] == 7, "all seven headline targets the model exports exist in the shipped model")
    share = j["headline"]["relations_in_cones"] / j["stats"]["relations"]
    close(j["relations_in_headline_cones"], share, "share = relations in cones / relations")


@case
def targets_beyond_the_uncertain_inputs_stay_point_values(cli):
    # Throughput does not depend on the tariff or the capex rate: no interval, no crash.
    j = cli.json("resolve", "training.tokens_per_sec", "--preset", UNCERTAIN, image="model")
    close(j["value"], 2e7 / 3, "tokens per second")
    check("interval" not in j, "no interval for a target the uncertain inputs do not reach")
    _, err = cli.run("sensitivity", "training.tokens_per_sec", "--preset", UNCERTAIN, image="model", expect=2)
    contains(err, "none of the preset's uncertain inputs reaches training.tokens_per_sec")
