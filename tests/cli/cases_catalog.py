# Registry and preset commands (issue 19 item 3): list, search, list-presets, scenario-report over several
# presets, export json of several targets, root-debt --scope. Run by run_cli_tests.py, whose helpers they
# use. The `estimate` system (model/28_estimate.gstack) is small enough to check by hand.

CAT_ESTIMATE_ROOTS = ["estimate.mfu", "estimate.n_gpus", "estimate.node_power_ratio", "estimate.params",
                      "estimate.price_per_gpu_hour", "estimate.pue", "estimate.tokens"]


@case
def list_filters_by_system_kind_prefix_and_unit(cli):
    out, _ = cli.run("list", "--system", "estimate", "--kind", "root", image="model")
    cli.golden("list_estimate_roots", out)
    j = cli.json("list", "--system", "estimate", "--kind", "root", image="model")
    check([v["name"] for v in j["variables"]] == CAT_ESTIMATE_ROOTS and j["count"] == 7, str(j))
    # A unit matches by dimension: W finds the MW-valued facility power.
    j = cli.json("list", "--prefix", "estimate.", "--unit", "W", image="model")
    check([v["name"] for v in j["variables"]] == ["estimate.facility_power"], str(j))
    check(j["variables"][0]["unit"] == "MW" and j["variables"][0]["kind"] == "derived", "unit and kind")
    j = cli.json("list", "--prefix", "estimate.", image="model")
    check(j["count"] == 18, "7 roots and 11 derived variables in the estimate system")
    _, err = cli.run("list", "--system", "estimat", image="model", expect=2)
    contains(err, "unknown system 'estimat'", "did you mean 'estimate'")
    _, err = cli.run("list", "--unit", "furlong", image="model", expect=2)
    contains(err, "bad --unit 'furlong'")
    cli.run("list", "--kind", "leaf", image="model", expect=2)


@case
def search_finds_every_word_in_name_or_description(cli):
    out, _ = cli.run("search", "board power limit", image="model")
    contains(out, "gpu.tdp ", "Board power limit")
    j = cli.json("search", "BOARD power", "--system", "estimate", image="model")
    check([v["name"] for v in j["variables"]] == ["estimate.facility_power", "estimate.node_power_ratio"], str(j))
    out, _ = cli.run("search", "no such words anywhere", image="model")
    check(out == "0 variables\n", out)


@case
def list_presets_shows_description_and_source(cli):
    out, _ = cli.run("list-presets", "--dir", "estimate", image="model")
    # accelerators.toml has a schema: it is the estimate's data, not a preset, and is left out.
    contains(out, "estimate/base\n", "  description : Quick-estimate assumptions", "  source      : Newkirk et al.", "1 preset\n")
    check("accelerators" not in out, out)
    tariffs = sorted(f[:-5] for f in os.listdir(os.path.join(HERE, "..", "..", "presets", "tariff")) if f.endswith(".toml"))
    j = cli.json("list-presets", "--dir", "tariff", image="model")
    check([p["name"] for p in j] == ["tariff/" + t for t in tariffs], str([p["name"] for p in j]))
    check(all(p["source"] and p["description"] and p["error"] is None for p in j), "every tariff states its source")
    j = cli.json("list-presets", image="model")
    check(any(p["name"] == "default" for p in j) and any(p["name"] == "hardware/h100_sxm" for p in j), "whole directory")
    _, err = cli.run("list-presets", "--dir", "harware", image="model", expect=2)
    contains(err, "did you mean 'hardware'")
    _, err = cli.run("list-presets", "--dir", "../model", image="model", expect=2)
    contains(err, "inside the presets directory")


@case
def scenario_report_layers_several_presets(cli):
    with tempfile.TemporaryDirectory() as d:
        free = os.path.join(d, "free_capex.toml")
        with open(free, "w") as f:
            f.write('name = "free_capex"\nsource = "test"\n[assign]\n"econ.job.capex_rate" = "0 USD/s"\n')
        j = cli.json("scenario-report", "dense_training_cost_fixture", free, "--target", "econ.cost.per_token", image="model")
        check(j["preset"] == "dense_training_cost_fixture + free_capex", j["preset"])
        # Reference acceptance fact: the fixture with capex_rate = 0 costs 7.8e-11 USD/token (power only).
        close(j["targets"][0]["value"], 7.8e-11, "later preset wins")
        # Nothing is missing; the one issue is the fixture's [expected] cost, which free capex no longer meets.
        check(j["missing_families"] == [] and not j["targets"][0]["missing"], "nothing missing")
        check(j["status"] == "issues" and j["issue_count"] == 1, f"the unmet [expected] cost is the only issue: {j['issue_count']}")
        cli.run("scenario-report", "dense_training_cost_fixture", free, "--fail-on-issues", image="model", expect=1)
    out, err = cli.run("scenario-report", "dense_variant_selector", "hardware/h100_sxm", "--target", "training.tokens_per_sec",
                       "--target", "gpu.peak_flops", "--details", "--missing-families", "--fail-on-issues", image="model", expect=1)
    contains(out, "Scenario report: dense_variant_selector + h100_sxm", "peak_flops      ok      gpu.peak_flops = 989.4298 TFLOP/s",
             "      missing: arch.act.values_per_score", "\nmissing families:\n", "  family=arch category=primitive-root count=4 "
             "names=arch.d_model, arch.n_heads, arch.n_layers, arch.seq_len")
    contains(err, "issues (missing inputs or violated checks)")
    j = cli.json("scenario-report", "dense_variant_selector", "hardware/h100_sxm", "--target", "training.tokens_per_sec", image="model")
    fams = {(f["family"], f["boundary_category"]): f for f in j["missing_families"]}
    check(fams[("arch", "primitive-root")]["count"] == 4, str(fams.get(("arch", "primitive-root"))))
    check(sum(f["count"] for f in j["missing_families"]) == len(j["targets"][0]["missing"]), "families partition the missing inputs")


@case
def export_json_of_several_targets_is_the_union_of_their_cones(cli):
    a = cli.json("export", "json", "estimate.wallclock", image="model")
    b = cli.json("export", "json", "estimate.energy_cost", image="model")
    both = cli.json("export", "json", "estimate.wallclock", "estimate.energy_cost", image="model")
    check(both["roots"] == ["estimate.wallclock", "estimate.energy_cost"], str(both["roots"]))
    names = {n["name"] for n in both["nodes"]}
    check(names == {n["name"] for n in a["nodes"]} | {n["name"] for n in b["nodes"]}, "union of the nodes")
    edges = {(e["from"], e["to"]) for e in both["edges"]}
    check(edges == {(e["from"], e["to"]) for e in a["edges"]} | {(e["from"], e["to"]) for e in b["edges"]}, "union of the edges")
    check({"estimate.model_flops", "econ.power.price_kwh", "gpu.tdp"} <= names, "both cones present")
    out, _ = cli.run("export", "dot", "estimate.wallclock", "estimate.energy_cost", image="model")
    contains(out, '"estimate.energy_cost" [label="estimate.energy_cost\\n[USD]", style=filled, fillcolor="#c8e6c9"]')
    cli.run("export", "json", "estimate.wallclock", "no.such.var", image="model", expect=2)


@case
def root_debt_scope_ranks_one_systems_roots(cli):
    out, _ = cli.run("root-debt", "--scope", "estimate", image="model")
    cli.golden("root_debt_scope_estimate", out)
    j = cli.json("root-debt", "--scope", "estimate", image="model")
    # By hand from model/28_estimate.gstack: n_gpus reaches sustained_flops, wallclock, gpu_hours,
    # facility_power, energy, energy_cost, accelerator_cost, total_cost, cost_per_mtoken (9); the price
    # reaches accelerator_cost, total_cost, cost_per_mtoken (3).
    deps = {r["variable"]: r["dependents"] for r in j["rows"]}
    check(sorted(deps) == CAT_ESTIMATE_ROOTS and j["scope"] == "estimate" and j["total_roots"] == 7, str(j))
    check(deps["estimate.n_gpus"] == 9 and deps["estimate.mfu"] == 8 and deps["estimate.price_per_gpu_hour"] == 3
          and deps["estimate.pue"] == 5, str(deps))
    fam = cli.json("root-debt", "--scope", "estimate", "--families", image="model")
    check(fam["family_count"] == 1 and fam["families"][0]["total_weight"] == sum(deps.values()), str(fam))
    _, err = cli.run("root-debt", "--scope", "nosuch", image="model", expect=2)
    contains(err, "unknown system 'nosuch' for --scope")
    cli.run("root-debt", "--scope", "estimate", "--preset", "default", "--target", "econ.cost.per_token", image="model", expect=2)
