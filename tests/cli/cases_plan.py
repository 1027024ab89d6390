# Cases for `gpu-stack plan` (run by run_cli_tests.py, whose helpers they use).

PLAN = ["plan", "--workload", "llama3-405b", "--preset", "h100_16k"]


@case
def plan_ranks_feasible_layouts_for_llama3_405b(cli):
    j = cli.json(*PLAN, "--top", "10", image="model")
    check(j["problem"]["n_gpus"] == 16384 and j["problem"]["global_batch"] == 2048, f"problem {j['problem']}")
    check(len(j["ranked"]) == 10, "a top 10")
    check(j["enumerated"] > j["evaluated"] > j["feasible"] > 0, "rules and constraints both reject")
    objs = [r["objective"] for r in j["ranked"]]
    check(objs == sorted(objs, reverse=True), "best first")
    for r in j["ranked"]:
        lay, mem = r["layout"], r["memory_per_gpu"]
        check(lay["tp"] * lay["pp"] * lay["cp"] * lay["dp"] == 16384, f"the layout uses every GPU: {lay}")
        check(mem["total"]["value"] <= mem["capacity"]["value"], f"fits in HBM: {mem}")
        parts = sum(mem[k]["value"] for k in ("weights", "gradients", "optimizer", "activations", "comm_buffers", "reserve"))
        close(parts, mem["total"]["value"], "the breakdown adds up to the total")
        check(0 < r["metrics"]["mfu"]["value"] < 1, "an MFU below one")
        close(r["objective"], r["metrics"]["tokens_per_sec"]["value"], "objective is tokens/s")
    names = {x["name"]: x["count"] for x in j["rejected"]}
    check(names["training.fits_in_hbm"] > 0 and names["heads_by_tp"] >= 0, f"rejection counts {names}")
    check(sum(names.values()) == j["enumerated"] - j["feasible"], "every rejected candidate is counted once")


@case
def plan_text_fix_and_objective(cli):
    out, _ = cli.run(*PLAN, "--fix", "tp=8", "--fix", "pp=16", "--fix", "cp=1", "--top", "3", image="model")
    contains(out, "#1 tp=8 pp=16")
    contains(out, "memory per GPU: weights")
    contains(out, "rejected:")
    j = cli.json(*PLAN, "--fix", "tp=8", "--fix", "pp=16", "--fix", "cp=1", "--fix", "recompute=full", "--top", "1", image="model")
    lay = j["ranked"][0]["layout"]
    check(lay["tp"] == 8 and lay["pp"] == 16 and lay["cp"] == 1 and lay["dp"] == 128 and lay["recompute"] == "full", f"pins hold: {lay}")
    t = cli.json(*PLAN, "--objective", "time_to_train", "--top", "1", image="model")
    check(t["objective"]["variable"] == "training.wallclock" and t["objective"]["sense"] == "min", "time_to_train minimises the wall clock")
    # The fastest layout also trains the fixed token budget soonest.
    check(t["ranked"][0]["layout"] == cli.json(*PLAN, "--top", "1", image="model")["ranked"][0]["layout"], "same best layout")


@case
def plan_bad_input_and_infeasible(cli):
    _, err = cli.run(*PLAN, "--fix", "tpp=8", image="model", expect=2)
    contains(err, "'tpp' is not a knob of the search")
    _, err = cli.run(*PLAN, "--fix", "recompute=sometimes", image="model", expect=2)
    contains(err, "none, selective, full")
    _, err = cli.run(*PLAN, "--fix", "tp", image="model", expect=2)
    contains(err, "expected KNOB=VALUE")
    _, err = cli.run(*PLAN, "--objective", "speed", image="model", expect=2)
    contains(err, "unknown objective")
    _, err = cli.run("plan", "--workload", "llama9", "--preset", "h100_16k", image="model", expect=2)
    contains(err, "llama9")
    # 405B on 16K GPUs with everything replicated, no recomputation and one pipeline stage cannot fit in 80 GB.
    out, err = cli.run(*PLAN, "--fix", "pp=1", "--fix", "zero=0", "--fix", "tp=1", image="model", expect=1)
    contains(out, "no layout is feasible")
    contains(err, "no feasible layout")


@case
def resolve_shows_a_layout_that_does_not_fit(cli):
    out, _ = cli.run("resolve", "training.mem.hbm_required_per_gpu", "--preset", "h100_16k", "--assign", "par.pp=1",
                     "--assign", "par.dp=2048", image="model")
    contains(out, "VIOLATED:")
    contains(out, "training.fits_in_hbm [violated]")
    cli.run("resolve", "training.mem.hbm_required_per_gpu", "--preset", "h100_16k", "--assign", "par.pp=1",
            "--assign", "par.dp=2048", "--fail-on-violated-constraints", image="model", expect=1)
