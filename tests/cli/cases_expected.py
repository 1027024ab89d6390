# Control characters in echoed input (the [expected] case moved to cases/unmet_expected_value_is_an_issue.test).


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
