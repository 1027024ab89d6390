# The serving simulator on the command line (simulate --serving) and the serving experiments E004 and
# E006 (experiment-run), run by run_cli_tests.py.

SERVING_SIM = "presets/sim/llama3-70b-8xh100-serving.toml"


@case
def simulate_serving_takes_its_engine_from_the_model(cli):
    out, _ = cli.run("simulate", "--serving", SERVING_SIM, "--json", image="model")
    again, _ = cli.run("simulate", "--serving", SERVING_SIM, "--json", image="model")
    check(out == again, "the same seed gives byte-identical output")
    j = json.loads(out)
    p = "serving/llama3_70b_8xh100_tp8"
    # The replica's numbers are the model's (presets/sim/serving-binding.toml names them).
    step1 = cli.json("resolve", "serve.decode.t_step", "--preset", p, "--assign", "serve.batch=1", image="model")["value"]
    check(abs(j["model"]["decode_step_batch1_s"] / step1 - 1) < 1e-9, f"decode step at batch 1 {j['model']} vs {step1}")
    power = cli.json("resolve", "serve.replica.power", "--preset", p, image="model")["value"]
    rate = cli.json("resolve", "serve.replica.cost_rate", "--preset", p, image="model")["value"]
    close(j["model"]["replica_power_w"], power, "replica power")
    close(j["model"]["replica_cost_usd_per_s"], rate, "replica cost rate")
    # Energy and cost: one replica held for the 780 s window; per token over the tokens served in it.
    window = 900 - 120
    close(j["energy_j"], power * window, "energy")
    tokens = j["output_tokens_per_s"] * window
    close(j["cost_per_million_output_tokens_usd"], rate * window / tokens * 1e6, "cost per million output tokens")
    close(j["energy_per_output_token_j"], power * window / tokens, "energy per output token")
    # 3 requests/s of the Azure conversation trace's mean 211.1 output tokens: about 633 tokens/s (Poisson noise ~3 %).
    check(abs(j["output_tokens_per_s"] / (3 * 211.126) - 1) < 0.08, f"throughput {j['output_tokens_per_s']}")
    check(j["requests"]["measured"] > 2000, "requests measured")
    for m in ("ttft_s", "tpot_s"):
        check(0 < j[m]["p50"] <= j[m]["p90"] <= j[m]["p99"], f"{m} percentiles ordered: {j[m]}")
    check(j["tpot_s"]["p50"] >= j["model"]["decode_step_batch1_s"], "no token faster than a batch-1 step")
    check(j["goodput_tokens_per_s"] <= j["output_tokens_per_s"] and 0 <= j["slo_attainment"] <= 1, "goodput within throughput")
    text, _ = cli.run("simulate", "--serving", SERVING_SIM, image="model")
    contains(text, "TTFT  p50", "p90", "p99", "goodput", "per million output tokens")


@case
def simulate_serving_timeline_and_bad_input(cli):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "requests.csv")
        j = json.loads(cli.run("simulate", "--serving", SERVING_SIM, "--timeline", path, "--seed", "5", "--json", image="model")[0])
        with open(path) as f:
            rows = f.read().splitlines()
        check(rows[0] == "replica,arrival_s,first_token_s,finish_s,prompt_tokens,output_tokens,ttft_s,tpot_s", rows[0])
        check(len(rows) == j["requests"]["arrived"] + 1, "one row per request")
        bad = os.path.join(d, "bad.toml")
        with open(bad, "w") as f:
            f.write('schema = "gpu-stack.serving-scenario.v1"\nname = "x"\npreset = "serving/llama3_8b_1xh100"\nseed = 1\n'
                    'max_batch = 0\nhorizon_s = 10\nwarmup_s = 1\n')
        _, err = cli.run("simulate", "--serving", bad, image="model", expect=2)
        contains(err, bad + ":5:", "max_batch")
        with open(SERVING_SIM) as f:
            huge = f.read().replace("rate_per_s = 3.0", "rate_per_s = 90000").replace("horizon_s = 900", "horizon_s = 600000")
        with open(os.path.join(d, "huge.toml"), "w") as f:
            f.write(huge.replace("../../data/", os.path.abspath("data") + "/"))
        _, err = cli.run("simulate", "--serving", os.path.join(d, "huge.toml"), image="model", expect=2)
        contains(err, "five million requests")
    _, err = cli.run("simulate", "--serving", "no-such.toml", image="model", expect=2)
    contains(err, "no-such.toml")
    _, err = cli.run("simulate", "--serving", SERVING_SIM, "--replicas", "2", image="model", expect=2)
    contains(err, "--replicas")


def serving_experiment(cli, exp, scenario):
    """Runs a serving experiment twice into one folder; returns the artifact (exit 1: the screen fails)."""
    with tempfile.TemporaryDirectory() as d:
        out, _ = cli.run("experiment-run", exp, "--scenario", scenario, "--output", d, "--json", image="model", expect=1)
        stored = json.loads(out)
        files = sorted(os.listdir(d))
        check(files == [os.path.basename(stored["path"])] and files[0].startswith(exp + "-"), f"one content-addressed file: {files}")
        with open(stored["path"]) as f:
            text = f.read()
        again = json.loads(cli.run("experiment-run", exp, "--scenario", scenario, "--output", d, "--json", image="model", expect=1)[0])
        check(again["already_present"] and sorted(os.listdir(d)) == files, "a second identical run adds nothing")
        with open(stored["path"]) as f:
            check(f.read() == text, "the artifact is never overwritten")
        j = json.loads(text)
    check(j["artifact_sha256"] == stored["artifact_sha256"], "hash recorded")
    with open(os.path.join("experiments", exp, "protocol.sha256")) as f:
        check(j["protocol_hash"] == f.read().strip(), "run under the frozen protocol")
    return j


@case
def experiment_e004_runs_on_the_serving_simulator(cli):
    j = serving_experiment(cli, "E004", "experiments/E004/scenario-serving-virtual-v1.json")
    a = j["artifacts"][0]
    req = {r["requirement_id"]: r["status"] for r in a["evidence_requirements"]}
    check(req["factorial_action_access_equivalence"] == "satisfied" and req["interval_family_completeness"] == "satisfied", f"{req}")
    for rid in ("equal_accounting_baseline_dominance", "controlled_cluster_directional_transfer", "causal_exclusion",
                "workload_family_vector_nondegradation"):
        check(req[rid] == "unresolved", f"{rid} needs controlled runs: {req[rid]}")
    m = a["metrics"]
    check(len(m) == 10, f"all ten falsifier metrics computed virtually: {sorted(m)}")
    check(0 <= m["nominal_90_interval_coverage"] <= 1 and m["regime_crossing_family_count"] <= 4, f"{m}")
    # Regret against the per-family oracle and the loss against the best static cell are shares, never negative.
    check(0 <= m["intervention_regret_fraction_of_oracle_value"] < 1 and m["utility_noninferiority_loss"] >= 0, f"{m}")
    check(len(j["runs"]["cells"]) == 8 and len(j["runs"]["families"]) == 4, "eight cells, four families")
    check(any("seed policy reduced" in g for g in a["evidence_gaps"]), "the reduced seed count is stated")


@case
def experiment_e006_runs_on_the_serving_simulator(cli):
    j = serving_experiment(cli, "E006", "experiments/E006/scenario-serving-virtual-v1.json")
    a = j["artifacts"][0]
    f = {x["falsifier_id"]: x for x in a["falsifiers"]}
    for fid in ("e006-response-time", "e006-sustained-delivery", "e006-rebound"):
        check(f[fid]["survived"] is None, f"{fid} has no virtual metric: {f[fid]}")
    check(all(r["status"] == "unresolved" for r in a["evidence_requirements"]), "no requirement resolvable virtually")
    m = a["metrics"]
    # Powering down one of four replicas cuts the fleet's power by a quarter (the power model is per replica).
    check(abs(m["r_firm_fraction_of_matched_load"] - 0.25) < 1e-12, f"firm fraction {m['r_firm_fraction_of_matched_load']}")
    # Eight simulated events, all delivered: Wilson 95 % lower bound 1 / (1 + 1.96^2 / 8) = 0.6756.
    check(abs(m["event_delivery_probability_lower_95_bound"] - 1 / (1 + 1.959964 ** 2 / 8)) < 1e-9, f"{m}")
    check(f["e006-delivery-confidence"]["survived"] is False, "eight events cannot support 0.99")
    check(j["verdict"] == "fail", j["verdict"])
