# Cases for how numbers and the tools present themselves: display units in text, --si, sweep CSV units,
# --version, bash completion and man pages (run by run_cli_tests.py, whose helpers they use).
import re

# Display-unit factors, written out here so the test checks the table rather than reusing it.
DISPLAY = {"USD/Mtoken": 1e-6, "tokens/s": 1, "day": 86400, "s": 1, "MW": 1e6, "kW": 1e3, "W": 1, "GWh": 3.6e12,
           "GB": 8e9, "USD": 1, "seq": 1, "yr": 31557600, "h": 3600, "param": 1}


def text_values(out):
    """name -> (number, unit) from 'name = number unit' target lines."""
    found = {}
    for m in re.finditer(r"\b([a-z_][\w.]*) = (-?[\d.]+(?:e[-+]\d+)?)(?: (\S+))?$", out, re.M):
        found[m.group(1)] = (float(m.group(2)), m.group(3) or "")
    return found


def bin_dir(cli):
    return os.path.dirname(os.path.abspath(cli.bin))


@case
def display_units_default_headline(cli):
    """The default scenario's headline in the field's units; each shown number is the JSON (SI) value."""
    out, _ = cli.run("scenario-report", "default", image="model")
    shown = text_values(out)
    expect_units = {"econ.cost.per_token": "USD/Mtoken", "training.tokens_per_sec": "tokens/s", "training.wallclock": "day",
                    "econ.job.dc_power": "MW", "cluster.node.power": "kW", "gpu.power.total": "W",
                    "econ.run.energy": "GWh", "training.mem.hbm_required_per_gpu": "GB", "training.t_step": "s"}
    for name, unit in expect_units.items():
        check(name in shown and shown[name][1] == unit, f"{name} shown as {shown.get(name)}, expected {unit}")
    j = cli.json("scenario-report", "default", image="model")
    for t in j["targets"]:
        if t["target"] not in shown or t["value"] is None:
            continue
        number, unit = shown[t["target"]]
        factor = DISPLAY.get(unit, 1 if unit in ("", t["unit"]) else None)
        if factor is None:
            continue
        # Text keeps seven significant digits: the shown number is the SI value to 5e-7.
        err = abs(number * factor - t["value"]) / max(abs(t["value"]), 1e-300)
        check(err <= 5e-7, f"{t['target']}: text {number} {unit} vs JSON {t['value']} {t['si_unit']} (relative {err:.2g})")
        check(t["si_unit"] and "Mtoken" not in t["si_unit"], "JSON keeps SI unit strings")
    # --si restores the declared units.
    out, _ = cli.run("scenario-report", "default", "--si", image="model")
    contains(out, "econ.cost.per_token = 6.47614e-07 USD/token", "training.wallclock = 8704206 s", "econ.run.energy = 5687929 kW*h")


@case
def sweep_csv_in_the_units_of_vary(cli):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "sweep.csv")
        cli.run("sweep", "econ.run.power_cost", "--preset", "dense_training_cost_fixture",
                "--vary", "econ.power.price_kwh_peak=100,400 USD/(MW*h)", "--vary", "par.n_gpus=8", "--out", out, image="model")
        with open(out) as f:
            lines = f.read().splitlines()
        check(lines[0] == "econ.power.price_kwh_peak[USD/(MW*h)],par.n_gpus[GPUs],econ.run.power_cost[USD]", lines[0])
        rows = [l.split(",") for l in lines[1:]]
        check([r[0] for r in rows] == ["100", "400"], f"the varied column repeats the given numbers: {rows}")
        # power cost = 5200 W x 1.5 s x price; 100 USD/MWh -> 7800 J / 3.6e9 J/MWh x 100 = 2.1667e-4 USD
        close(float(rows[0][2]), 5200 * 1.5 / 3.6e9 * 100, "cheap point in USD")
        close(float(rows[1][2]), 5200 * 1.5 / 3.6e9 * 400, "dear point in USD")
        jpath = os.path.join(d, "sweep.json")
        cli.run("sweep", "econ.run.power_cost", "--preset", "dense_training_cost_fixture",
                "--vary", "econ.power.price_kwh_peak=100,400 USD/(MW*h)", "--out", jpath, image="model")
        with open(jpath) as f:
            j = json.load(f)
        close(j["rows"][0]["econ.power.price_kwh_peak"], 100 / 3.6e9, "JSON stays SI (USD/J)")


@case
def readme_sweep_example_moves_the_answer(cli):
    """The README's sweep varies inputs that change the cost per token under the default preset."""
    with open(os.path.join(HERE, "..", "..", "README.md")) as f:
        readme = f.read()
    m = re.search(r'\$gs sweep econ\.cost\.per_token --preset default \\\n\s+(.*?) --out sweep\.csv', readme)
    check(m, "README has the sweep example")
    varies = re.findall(r'--vary "([^"]+)"', m.group(1))
    check(len(varies) == 2, f"two --vary in the README example: {varies}")
    for v in varies:
        j = cli.json("sweep", "econ.cost.per_token", "--preset", "default", "--vary", v, image="model")
        t = j["targets"][0]
        check(t["max"] > t["min"] * 1.001, f"--vary {v} moves the cost per token: {t}")


def project_version():
    with open(os.path.join(HERE, "..", "..", "CMakeLists.txt")) as f:
        return re.search(r"project\(gpu_stack VERSION (\S+)", f.read()).group(1)


@case
def version_of_both_tools(cli):
    version = project_version()
    for tool in ("gpu-stack", "gstackc"):
        p = subprocess.run([os.path.join(bin_dir(cli), tool), "--version"], capture_output=True, text=True)
        check(p.returncode == 0, f"{tool} --version exit {p.returncode}")
        check(p.stdout.strip() == f"{tool} {version} (registry image format 2)", p.stdout)


def complete(script, command, words):
    """COMPREPLY of the generated completion for the words typed so far (the last is being completed)."""
    probe = script + f'\nCOMP_WORDS=({command} {" ".join(words)}); COMP_CWORD={len(words)}\n' \
                     f'_{command.replace("-", "_")}\nprintf "%s\\n" "${{COMPREPLY[@]}}"\n'
    p = subprocess.run(["bash", "-c", probe], capture_output=True, text=True)
    check(p.returncode == 0, p.stderr)
    return p.stdout.split()


@case
def bash_completion_from_the_cli(cli):
    for tool, sub, prefix, option in (("gpu-stack", "resolve", "res", "--trace"), ("gstackc", "compile", "compi", "--output")):
        p = subprocess.run([os.path.join(bin_dir(cli), tool), "completion", "bash"], capture_output=True, text=True)
        check(p.returncode == 0 and "complete -o default -F" in p.stdout, p.stderr)
        syntax = subprocess.run(["bash", "-n"], input=p.stdout, capture_output=True, text=True)
        check(syntax.returncode == 0, f"bash -n: {syntax.stderr}")
        check(complete(p.stdout, tool, [prefix]) == [sub], f"{tool} {prefix}<TAB>")
        check(option in complete(p.stdout, tool, [sub, option[:4]]), f"{tool} {sub} {option[:4]}<TAB>")
    _, err = cli.run("completion", "zsh", expect=2, image=None)
    contains(err, "zsh")


@case
def man_pages_render(cli):
    man_dir = os.path.join(os.path.dirname(bin_dir(cli)), "man")
    for tool in ("gpu-stack", "gstackc"):
        page = os.path.join(man_dir, f"{tool}.1")
        check(os.path.exists(page), f"{page} is built (target man)")
        if not shutil.which("man"):
            print(f"man is not installed: checked that {page} exists only")
            continue
        p = subprocess.run(["man", "-l", page], capture_output=True, text=True, env={**os.environ, "MANPAGER": "cat", "MANWIDTH": "100"})
        check(p.returncode == 0, p.stderr)
        contains(p.stdout, "NAME", "SUBCOMMANDS", "--version", project_version())
        check("/bin/" not in p.stdout, "no build path in the page")
    p = subprocess.run(["man", "-l", os.path.join(man_dir, "gpu-stack.1")], capture_output=True, text=True,
                       env={**os.environ, "MANPAGER": "cat"}) if shutil.which("man") else None
    if p:
        contains(p.stdout, "sweep", "--si")


# The default scenario's headline before the workload pins moved into workload/llama3_70b_default_run.toml
# (scenario-report default --json at commit 65c2775); moving them must not change any of them.
DEFAULT_HEADLINE = {
    "arch.params_total_dense": 70553698304.0, "training.rel.gpu_mtbf": 182437208.59188545,
    "econ.cost.per_token": 6.476139840576505e-07, "training.tokens_per_sec": 1723304.8774502936,
    "training.mfu": 0.42318247523589975, "training.t_step": 9.542708096633167, "training.wallclock": 8704205.620419974,
    "econ.job.dc_power": 2352488.753853533, "thermal.dc.pue": 1.1848406239031708, "gpu.power.total": 643.6563348441044,
    "cluster.node.power": 7755.818807484907, "econ.run.energy": 20476545833266.7, "econ.run.power_cost": 509069.6811326026,
    "econ.run.hw_cost": 6748083.4925461365, "econ.run.total_cost": 9714209.760864757,
    "par.batch.global": 2048.0,
    # Includes the communication buffers and the stack's HBM reserve since `plan` (256448086016 before).
    "training.mem.hbm_required_per_gpu": 326241304576.0,
}

# The roots the default run's workload layer estimated by hand; a new workload must give its own.
WORKLOAD_ROOTS = ["gpu.hbm.utilization=0.3", "gpu.l2.utilization=0.3", "gpu.nvlink.utilization=0.11",
                  "gpu.nic.utilization=0.05", "cluster.storage.servers=32"]


@case
def default_headline_unchanged_by_the_workload_layer(cli):
    j = cli.json("scenario-report", "default", image="model")
    values = {t["target"]: t["value"] for t in j["targets"]}
    for name, expected in DEFAULT_HEADLINE.items():
        close(values[name], expected, name)
    check("llama3_70b_default_run" in j["layers"], f"the workload layer is applied: {j['layers']}")
    _, err = cli.run("resolve", "econ.cost.per_token", "--preset", "default", image="model")
    check("checked overrides" not in err, "a shipped preset is not checked unless asked")


@case
def user_preset_replaces_the_default_workload(cli):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mine.toml")
        with open(path, "w") as f:
            f.write('name = "mine"\nextends = ["default", "workload/llama3_8b"]\n')
        j = cli.json("scenario-report", path, "--no-check-overrides", image="model")
        check("llama3_8b" in j["layers"] and "llama3_70b" not in j["layers"] and "llama3_70b_default_run" not in j["layers"],
              f"the 8B workload replaces the 70B one and its pins: {j['layers']}")
        check("dgx_h100" in j["layers"] and "default" in j["layers"], "the rest of default stays")
        overridden = {o["variable"] for o in j["overrides"]}
        check("gpu.compute.activity" not in overridden, "the 70B run's GPU activity is no longer pinned")
        # Without the hand estimates the answer names them rather than borrowing the 70B run's.
        r = cli.json("resolve", "econ.cost.per_token", "--preset", path, image="model")
        # (The resolver's list of missing inputs is not yet complete, issue 11; only its members are checked.)
        missing = {m["variable"] for m in r["missing"]}
        check(not r["complete"] and missing and missing <= {a.split("=")[0] for a in WORKLOAD_ROOTS}, f"missing {missing}")
        assigns = [x for a in WORKLOAD_ROOTS for x in ("--assign", a)]
        act = cli.json("resolve", "gpu.compute.activity", "--preset", path, *assigns, image="model")
        hfu = cli.json("resolve", "training.hfu", "--preset", path, *assigns, image="model")
        check(abs(act["value"] - 0.42) > 0.01, f"the activity is derived for the 8B run: {act['value']}")
        d_model = cli.json("resolve", "arch.d_model", "--preset", path, image="model")
        close(d_model["value"], 4096, "the 8B model's width")
        cost = cli.json("resolve", "econ.cost.per_token", "--preset", path, *assigns, image="model")
        # 8B needs about 6 x 8.0e9 FLOP per token against 6 x 70.6e9: the cost falls several-fold.
        check(cost["value"] < DEFAULT_HEADLINE["econ.cost.per_token"] / 4, f"8B cost per token {cost['value']}")
        check(0 < hfu["value"] < 1, "HFU resolves")
        # The user preset's overrides are checked by default, with a one-line summary.
        _, err = cli.run("resolve", "econ.cost.per_token", "--preset", path, *assigns, image="model")
        lines = [l for l in err.splitlines() if "checked overrides of user preset mine" in l]
        check(len(lines) == 1, err)
        check(re.search(r"\d+ assignments replace a relation; \d+ agree, \d+ disagree, \d+ cannot be checked", lines[0]), lines[0])
        _, err = cli.run("resolve", "econ.cost.per_token", "--preset", path, *assigns, "--no-check-overrides", image="model")
        check("checked overrides" not in err, "--no-check-overrides skips it")
