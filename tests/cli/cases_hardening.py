# Misuse cases of the model front end and the resolver (issue 11): deep chains, huge exact numbers.
# Run by run_cli_tests.py, whose helpers they use.
import time


def gstackc(cli):
    return os.path.join(os.path.dirname(cli.bin), "gstackc")


def chain_model(path, n):
    """A chain of n equations chain.x1 = chain.x0 + 1 [s], ..., each reading the one before."""
    with open(path, "w") as f:
        f.write('system chain "a long chain"\nuse physics\n')
        for i in range(n + 1):
            f.write(f'var chain.x{i} : s "link {i}"\n')
        for i in range(1, n + 1):
            f.write(f"eq e{i}: chain.x{i} = chain.x{i - 1} + 1 [s]\n")


@case
def deep_chain_resolves_and_traces(cli):
    # 30,000 links: every walk over the graph (compile, resolve, trace, trace --json) must be iterative.
    n = 30000
    with tempfile.TemporaryDirectory() as d:
        src, img = os.path.join(d, "chain.gstack"), os.path.join(d, "chain.gsimg")
        chain_model(src, n)
        p = subprocess.run([gstackc(cli), "compile", "model/00_units.gstack", "model/01_physics.gstack", src, "-o", img],
                           capture_output=True, text=True)
        check(p.returncode == 0, f"compile: exit {p.returncode}\n{p.stderr}")
        j = cli.json("resolve", f"chain.x{n}", "--assign", "chain.x0=2", "--image", img, image=None)
        close(j["value"], n + 2.0, "x_n = x_0 + n seconds")
        out, _ = cli.run("trace", f"chain.x{n}", "--assign", "chain.x0=2", "--image", img, image=None)
        lines = out.splitlines()
        check(len(lines) == n + 1, f"one line per link: {len(lines)}")
        check(lines[-1].startswith(" " * 80 + f"[depth {n}] chain.x0 = 2"), lines[-1][:120])
        check(len(out) < 400 * (n + 1), "indentation is bounded: the trace is linear in the chain's length")
        out, _ = cli.run("trace", f"chain.x{n}", "--assign", "chain.x0=2", "--json", "--image", img, image=None)
        depth, variables = json_depth(out), out.count('"variable": "chain.x')
        check(depth == 2 * n + 2, f"the JSON tree nests one object and one children array per link: {depth}")
        check(variables == n + 1, f"every link is in the JSON tree: {variables}")
        check(out.rstrip().endswith('"missing": []\n}'), "nothing is missing")


def json_depth(text):
    """The nesting depth of a JSON document, checked for balance without recursion (Python's own
    parser stops at about 1,000 levels)."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "}]":
            depth -= 1
            check(depth >= 0, "brackets balance")
    check(depth == 0 and not in_string, "the document is complete")
    return deepest


@case
def huge_exact_power_is_an_overflow(cli):
    # 2^(2^31) would be a 256 MB integer: evaluated in doubles it overflows at once and is reported as
    # unevaluable instead of hanging (it ran 39 s and printed 0.9999999 before).
    start = time.monotonic()
    j = cli.json("resolve", "precision.fp32.max_normal", "--preset", "default",
                 "--assign", "precision.fp32.exp_bits=32", image="model")
    check(time.monotonic() - start < 10, "answers in seconds")
    check(j.get("value") is None, f"no number: {j.get('value')}")
    reasons = [m["reason"] for m in j["missing"] if m["category"] == "unevaluable"]
    check(any("range of a double" in r for r in reasons), f"an overflow is reported: {j['missing']}")
    # The real FP32 format still answers exactly: (2 - 2^-23) * 2^127.
    j = cli.json("resolve", "precision.fp32.max_normal", "--preset", "default", image="model")
    close(j["value"], 3.4028234663852886e38, "FP32 max normal")


@case
def stale_image_warns_on_load(cli):
    with tempfile.TemporaryDirectory() as d:
        src, img = os.path.join(d, "chain.gstack"), os.path.join(d, "chain.gsimg")
        chain_model(src, 3)
        subprocess.run([gstackc(cli), "compile", "model/00_units.gstack", "model/01_physics.gstack", src, "-o", img],
                       check=True, capture_output=True)
        _, err = cli.run("stats", "--image", img, image=None)
        check("warning" not in err, f"a fresh image loads quietly: {err}")
        with open(src, "a") as f:
            f.write("# edited after the compile\n")
        os.utime(src, (time.time() + 5, time.time() + 5))
        _, err = cli.run("stats", "--image", img, image=None)
        contains(err, f"warning: registry image '{img}' is older than its model sources ({src} changed", "rebuild it")
        # Touched but unchanged (same SHA-256): no warning.
        chain_model(src, 3)
        os.utime(src, (time.time() + 10, time.time() + 10))
        _, err = cli.run("stats", "--image", img, image=None)
        check("warning" not in err, f"an unchanged source does not make the image stale: {err}")


@case
def preset_name_too_long_for_the_file_system_is_an_error(cli):
    # ENAMETOOLONG from the file system used to escape as an uncaught filesystem_error (found by fuzz.preset).
    name = "x" * 5000
    _, err = cli.run("resolve", "econ.cost.per_token", "--preset", name, image="model", expect=2)
    check("unknown preset" in err, err[:300])
    _, err = cli.run("resolve", "econ.cost.per_token", "--preset", name + "/y.toml", image="model", expect=2)
    check("cannot read preset file" in err, err[:300])


@case
def answer_in_many_missing_inputs_is_not_printed_out_in_full(cli):
    # Under demo_rack cost per token misses about 200 inputs through a deep cone: its formula, written out,
    # ran to 400 MB and minutes of work (the resolver's checks walked shared subexpressions as a tree).
    out, _ = cli.run("resolve", "econ.cost.per_token", "--preset", "demo_rack", image="model")
    check("is not determined" in out and "missing inputs" in out, out[:300])
    check("not printed: assign the missing inputs" in out, out[:600])
    check(len(out) < 100_000, f"the answer stays short: {len(out)} characters")
    j = cli.json("resolve", "econ.cost.per_token", "--preset", "demo_rack", image="model")
    check(j["complete"] is False and j["formula"].startswith("(a formula of more than"), str(j.get("formula"))[:200])


@case
def scenario_audit_skips_the_data_files_beside_the_presets(cli):
    # presets/validate/mapping.toml and presets/memory_fit.toml are data, not presets: each declares a
    # `schema`, so the audit skips it instead of reporting its keys as unknown preset keys.
    j = cli.json("scenario-audit", image="model")
    check(j["errors"] == 0, f"no preset fails the audit: {j['errors']}")
    paths = [p["path"] for p in j["presets"]]
    check(not any(p.endswith("validate/mapping.toml") or p.endswith("memory_fit.toml") for p in paths),
          "the data files are not audited as presets")
