# Golden cases for trace options (run by run_cli_tests.py, whose helpers they use).


@case
def trace_depth_limits_the_tree(cli):
    out, _ = cli.run("trace", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", "--depth", "1", image="model")
    lines = out.splitlines()
    check(lines[0].startswith("econ.cost.per_token = 3.000078 USD/Mtoken"), lines[0])
    check(all(not l.startswith("    ") for l in lines), "nothing deeper than one level")
    contains(out, "econ.run.total_cost = 30.00078 USD", "inputs below)")
    full, _ = cli.run("trace", "econ.cost.per_token", "--preset", "dense_training_cost_fixture", image="model")
    check(len(full.splitlines()) > len(lines), "the full trace is longer")
