# A layout that does not fit in HBM is reported as not fitting (issue 13 item 1): `resolve` warns with the
# per-GPU memory breakdown and `--json` carries it; `sweep` counts such points and its file marks them in
# a `fits` column. Run by run_cli_tests.py, whose helpers they use. The default scenario (Llama-3-70B
# shape, TP 8 x PP 4, 1 sequence per micro-batch) fits in the H100's 80 GiB; 16 sequences per
# micro-batch (same tokens per step) need about 449 GB, mostly activations.

GIB_BITS = 8 * 2 ** 30
BIG_MICRO = ["--assign", "par.batch.micro_per_gpu=16", "--assign", "par.batch.grad_accum_steps=2"]


@case
def resolve_warns_when_the_layout_does_not_fit(cli):
    out, err = cli.run("resolve", "training.tokens_per_sec", "--preset", "default", image="model")
    check("does not fit in HBM" not in err, f"the default layout fits: {err}")
    j = cli.json("resolve", "training.tokens_per_sec", "--preset", "default", image="model")
    fit = j["memory_fit"]
    check(fit["fits"] is True and fit["constraint"] == "training.fits_in_hbm", f"{fit}")
    close(fit["capacity"], 80 * GIB_BITS, "H100 capacity (bits, the JSON's SI unit)")
    close(sum(fit["parts"].values()), fit["required"], "the breakdown adds up to the total")
    out, err = cli.run("resolve", "training.tokens_per_sec", "--preset", "default", *BIG_MICRO, image="model")
    contains(err, "warning: this layout does not fit in HBM: needs ", " per GPU, has ", "(training.fits_in_hbm)",
             "    activations: ", "    weights: ", "    reserve: ")
    j = cli.json("resolve", "training.tokens_per_sec", "--preset", "default", *BIG_MICRO, image="model")
    fit = j["memory_fit"]
    check(fit["fits"] is False and fit["required"] > 4 * fit["capacity"], f"{fit}")
    check(fit["parts"]["activations"] > 0.9 * fit["required"], "activations dominate")
    # A scenario that does not price memory has no verdict.
    j = cli.json("resolve", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", image="model")
    check("memory_fit" not in j, "no memory verdict without a layout")


@case
def sweep_marks_points_that_do_not_fit(cli):
    vary = ["--vary", "par.batch.micro_per_gpu=1,2,4", "--vary", "par.batch.grad_accum_steps=32,16,8", "--zip"]
    with tempfile.TemporaryDirectory() as d:
        out_csv = os.path.join(d, "s.csv")
        out, _ = cli.run("sweep", "training.tokens_per_sec", "--preset", "default", *vary, "--out", out_csv, image="model")
        contains(out, "warning: 1 of 3 points do not fit in HBM (training.fits_in_hbm fails)", "'fits' column")
        with open(out_csv) as f:
            lines = f.read().splitlines()
        check(lines[0].endswith(",training.tokens_per_sec[tokens/s],fits"), lines[0])
        check([l.split(",")[-1] for l in lines[1:]] == ["1", "1", "0"], f"micro-batch 4 does not fit: {lines}")
        out_json = os.path.join(d, "s.json")
        j = cli.json("sweep", "training.tokens_per_sec", "--preset", "default", *vary, "--out", out_json, image="model")
        check(j["fits"] == {"column": "fits", "constraint": "training.fits_in_hbm", "points_not_fitting": 1}, f"{j['fits']}")
        with open(out_json) as f:
            rows = json.load(f)["rows"]
        check([r["fits"] for r in rows] == [True, True, False], f"{rows}")
        # No layout, no column: the fixture's sweeps keep their columns.
        j = cli.json("sweep", "econ.run.power_cost", "--preset", "dense_training_cost_fixture",
                     "--vary", "econ.power.price_kwh_peak=100,400 USD/(MW*h)", image="model")
        check("fits" not in j, "no verdict without a layout")
