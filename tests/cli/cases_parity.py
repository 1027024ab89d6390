# Cases for the reference-parity resolver options (issue 19 item 2), on the small test model
# (tests/unit/runtime/data/20_lab.gstack): --solve-systems, --fallback-on-violated-validity and
# --missing-families. Run by run_cli_tests.py.


@case
def resolve_solves_a_small_system(cli):
    # lab.c1 = lab.c2 + lab.a (variant loop) and lab.c2 = 2 lab.c1: with a = 3 m, c1 = -a and c2 = -2a.
    args = ("resolve", "lab.c2", "--variant", "lab.c1=loop", "--assign", "lab.a=3 m")
    j = cli.json(*args, "--solve-systems")
    check(j["complete"], "the system closes the value")
    close(j["value"], -6.0, "c2 = -2 a")
    steps = {s["variable"]: s for s in j["steps"]}
    close(steps["lab.c1"]["value"], -3.0, "c1 = -a")
    check(steps["lab.c1"].get("system_peers") == ["lab.c2"], "c1's step names its peer")
    check(steps["lab.c2"].get("system_peers") == ["lab.c1"], "c2's step names its peer")
    out, _ = cli.run(*args, "--solve-systems", "--trace")
    contains(out, "[system: lab.c2]", "[system: lab.c1]")
    # Without the option the cycle stays open: the answer names the missing member.
    j = cli.json(*args)
    check(not j["complete"], "without --solve-systems the cycle is a missing input")


@case
def resolve_leaves_a_singular_system_missing(cli):
    # c1 = c2 + a, c2 = 2 c1 is regular; with the 'plain' variant there is no cycle at all, so the
    # option changes nothing: c1 = a, c2 = 2a.
    j = cli.json("resolve", "lab.c2", "--variant", "lab.c1=plain", "--assign", "lab.a=3 m", "--solve-systems")
    close(j["value"], 6.0, "c2 = 2 a without a system")
    check(all("system_peers" not in s for s in j["steps"]), "no system step")


@case
def resolve_falls_back_on_violated_validity(cli):
    # lab.vf: variant vf_exact (a + 1 m) and approx vf_approx (1.5 a, valid when regime > 10). With no
    # selector the approximation is used; at regime 2 its validity is violated.
    args = ("resolve", "lab.vf", "--assign", "lab.a=4 m", "--assign", "lab.regime=2")
    j = cli.json(*args)
    close(j["value"], 6.0, "without the option: the approximation, 1.5 a")
    check(j["violations"] == 1, "and its validity is reported violated")
    j = cli.json(*args, "--fallback-on-violated-validity")
    close(j["value"], 5.0, "with the option: the variant a + 1 m")
    step = [s for s in j["steps"] if s["variable"] == "lab.vf"][0]
    check(step.get("fallback_from") == "vf_approx", "the step says what it replaced")
    check(j["violations"] == 0, "the fallback's own checks hold")
    out, _ = cli.run(*args, "--fallback-on-violated-validity", "--explain-selection")
    contains(out, "[fallback from vf_approx]", "why: fallback from vf_approx: its validity is violated")
    # Where the validity holds nothing switches.
    j = cli.json("resolve", "lab.vf", "--assign", "lab.a=4 m", "--assign", "lab.regime=20", "--fallback-on-violated-validity")
    close(j["value"], 6.0, "valid approximation kept")


@case
def resolve_groups_missing_inputs_by_family(cli):
    out, _ = cli.run("resolve", "lab.sum", "--missing-families")
    contains(out, "missing families:", "family=lab category=primitive-root count=2 names=lab.a, lab.b")
