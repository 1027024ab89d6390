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
        check(p.stdout.strip() == f"{tool} {version} (registry image format 1)", p.stdout)


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
