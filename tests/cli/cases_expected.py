# An [expected] value the model does not reproduce is an issue of the scenario (issue 11, item 3): it used
# to be shown next to the value while the status still said "ok" and --fail-on-issues exited 0.


@case
def unmet_expected_value_is_an_issue(cli):
    j = cli.json("scenario-report", "dense_training_cost_fixture", image="model")
    check(j["status"] == "ok" and j["issue_count"] == 0, f"the fixture meets its hand-computed values: {j['status']}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "wrong.toml")
        with open(path, "w") as f:
            # 0.15 s is right; 0.16 s is a stated value the model does not reproduce.
            f.write('name = "wrong"\nextends = ["dense_training_cost_fixture"]\n[expected]\n"training.t_step" = "0.16 s"\n')
        j = cli.json("scenario-report", path, "--no-check-overrides", image="model")
        check(j["status"] == "issues" and j["issue_count"] == 1, f"one unmet expected value: {j['status']} {j['issue_count']}")
        step = next(t for t in j["targets"] if t["target"] == "training.t_step")
        close(step["expected_relative_difference"], 0.01 / 0.16, "relative difference: |a - b| / max(|a|, |b|)")
        cli.run("scenario-report", path, "--no-check-overrides", "--fail-on-issues", image="model", expect=1)


@case
def control_characters_in_echoed_input_are_escaped(cli):
    """An escape sequence in a name or a preset's text is shown as \\xNN, never sent to the terminal."""
    _, err = cli.run("resolve", "econ.cost.per_token\x1b[2J", "--preset", "default", image="model", expect=2)
    check("\x1b" not in err and "\\x1B[2J" in err, f"escaped in the error: {err!r}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ctl.toml")
        with open(path, "w") as f:
            f.write('name = "ctl"\ndescription = "bell \\u0007 here"\nextends = ["dense_training_cost_fixture"]\n')
        out, _ = cli.run("scenario-report", path, "--no-check-overrides", image="model")
        check("\x07" not in out and "bell \\x07 here" in out, "escaped in the report's description")
