# The observatory's chart data (`export site`, runtime/site/charts.cpp, presets/site/charts.toml): the
# bundled Chart.js, the chart numbers against the CLI's, and the errors a missing library or a bad settings
# file give. Run by run_cli_tests.py, whose helpers they use.

CHARTS_PRESET = "dense_training_cost_uncertain"


def _charts_site(cli, out, *extra, env=None, expect=0):
    return cli.run("export", "site", "--out", out, "--preset", CHARTS_PRESET, *extra, image="model", env=env, expect=expect)


@case
def site_charts_bundle_chartjs_and_match_the_cli(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "site")
        _charts_site(cli, out)
        with open(os.path.join(out, "vendor", "chart.min.js")) as f:
            check("Chart.js v3.9.1" in f.read(300), "Chart.js 3.9.1 is bundled into vendor/")
        with open(os.path.join(out, "data", "charts.json")) as f:
            charts = json.load(f)
        with open(os.path.join(out, "data", "model.json")) as f:
            names = [v["name"] for v in json.load(f)["variables"]]
        ch = charts["scenarios"][0]
        target = names[charts["target"]]
        # The distribution is the uncertainty command's, sample for sample (same count and seed).
        want = cli.json("uncertainty", target, "--preset", CHARTS_PRESET, "--samples", str(ch["distribution"]["samples"]),
                        "--seed", str(ch["distribution"]["seed"]), image="model")
        for key, cli_key in (("p5", "p5"), ("p50", "median"), ("p95", "p95")):
            close(ch["distribution"][key], want[cli_key], f"distribution {key}")
        check(ch["distribution"]["counts"] == want["histogram"]["counts"], "the histogram is the CLI's")
        # The Sobol indices are the sensitivity command's.
        sob = cli.json("sensitivity", target, "--preset", CHARTS_PRESET, "--samples", str(ch["sobol"]["samples"]),
                       "--seed", str(ch["sobol"]["seed"]), image="model")
        got = {names[i["var"]]: i["total"] for i in ch["sobol"]["inputs"]}
        for i in sob["inputs"]:
            close(got[i["name"]], i["total_order"], f"Sobol total index of {i['name']}")
        # Each sweep passes through the preset's own answer at factor 1 and matches resolve --assign at its ends.
        point = cli.json("resolve", target, "--preset", CHARTS_PRESET, image="model")["value"]
        sw = ch["sweeps"][0]
        check(sw["factors"][0] == 0.25 and sw["factors"][-1] == 4.0, f"factors from presets/site/charts.toml: {sw['factors']}")
        mid = sw["factors"].index(1.0)
        close(sw["series"][0]["y"][mid], point, "sweep at the preset's value")
        vary = names[sw["vary"]]
        end = cli.json("resolve", names[sw["series"][0]["target"]], "--preset", CHARTS_PRESET, "--assign",
                       f"{vary}={sw['x'][-1]}", image="model")
        close(sw["series"][0]["y"][-1], end["value"], f"sweep end {vary}={sw['x'][-1]}")
        # The heat map's grid: rows are the y axis, columns the x axis.
        hm = ch["heatmap"]
        check(len(hm["z"]) == len(hm["y"]["values"]) and len(hm["z"][0]) == len(hm["x"]["values"]), "heat map shape")
        # A preset without a workload cannot be planned: the chart says why, the export still succeeds.
        check("error" in ch["plan"] and "par.batch.global" in ch["plan"]["error"], f"plan chart explains itself: {ch['plan']}")


@case
def site_charts_need_chartjs_and_a_valid_settings_file(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "site")
        _, err = _charts_site(cli, out, "--chartjs", os.path.join(d, "nowhere.js"), expect=2)
        contains(err, "charting library is missing", "nowhere.js", "libjs-chart.js")
        _, err = _charts_site(cli, out, env={"GSTACK_CHARTJS": os.path.join(d, "gone.js")}, expect=2)
        contains(err, "gone.js")
        check(not os.path.exists(out), "nothing is written when the library is missing")
        # A settings file naming an unknown variable is refused with its file, line and column.
        presets = os.path.join(d, "presets")
        shutil.copytree(os.path.join(HERE, "..", "..", "presets"), presets)
        path = os.path.join(presets, "site", "charts.toml")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace('vary = "par.n_gpus"', 'vary = "par.n_gpuz"', 1))
        _, err = _charts_site(cli, out, "--presets", presets, expect=2)
        contains(err, "charts.toml:", "par.n_gpuz")
        check(not os.path.exists(out), "nothing is written for a bad settings file")
