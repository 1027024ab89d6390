"""The Python module against the CLI of the same build: same library functions, same answers."""
import math

import numpy as np
import pytest

import gpu_stack

FIXTURE = "dense_training_cost_fixture"
UNCERTAIN = "dense_training_cost_uncertain"


def close(a, b, rel=1e-12):
    assert math.isclose(a, b, rel_tol=rel, abs_tol=0), f"{a} != {b} (rel {rel})"


def test_default_image_is_the_builds():
    assert gpu_stack.default_image_path().endswith("model.gsimg")
    assert gpu_stack.model().image_path == gpu_stack.default_image_path()


def test_resolve_matches_cli_and_the_published_demo_value(cli):
    r = gpu_stack.resolve("econ.cost.per_token", preset="default")
    ref = cli.json("resolve", "econ.cost.per_token", "--preset", "default")
    assert r.complete and r.missing == []
    assert r.value == ref["value"]  # bit for bit: the same resolver
    close(r.value, 6.476e-07, rel=1e-3)  # README's demo answer, 6.47614e-07 USD/token
    assert r.unit == "USD/token" and r.si_unit == "USD·token^-1"
    assert str(r) == "econ.cost.per_token = " + ref["display"]
    assert float(r) == r.value


def test_resolve_trace_steps_carry_relations_and_locations():
    r = gpu_stack.resolve("econ.cost.per_token", preset="default")
    assert len(r.trace) > 50
    last = r.trace[-1]
    assert last.variable == "econ.cost.per_token" and last.value == r.value
    assert last.relation and ".gstack:" in last.location and last.role
    assert all(isinstance(s, gpu_stack.Step) for s in r.trace)


def test_assign_numbers_follow_the_cli_rule(cli):
    # A bare number is in the display unit; a string may carry its own unit.
    a = gpu_stack.resolve("econ.cost.per_token", preset=FIXTURE, assign={"econ.job.capex_rate": 0.0, "par.n_gpus": 8})
    b = gpu_stack.resolve("econ.cost.per_token", preset=FIXTURE, assign=["econ.job.capex_rate=0 USD/s", "par.n_gpus=8"])
    ref = cli.json("resolve", "econ.cost.per_token", "--preset", FIXTURE, "--assign", "econ.job.capex_rate=0", "--assign", "par.n_gpus=8")
    assert a.value == b.value == ref["value"]
    close(a.value, 7.8e-11, rel=1e-9)  # by hand in tests/cli/cases/sweep_jit_matches_resolve.test: only the power cost is left


def test_missing_inputs_are_reported_not_defaulted():
    r = gpu_stack.resolve("cluster.node.peak_flops", assign={"cluster.node.n_gpus": 8})
    assert not r.complete and r.value is None
    assert [m["variable"] for m in r.missing] == ["gpu.peak_flops"]
    assert r.formula == "8*gpu.peak_flops"
    assert str(r) == "cluster.node.peak_flops = 8*gpu.peak_flops FLOP/s (missing: gpu.peak_flops)"
    with pytest.raises(gpu_stack.Error):
        float(r)


def test_errors_carry_the_cli_message_and_code(cli):
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.resolve("econ.cost.per_tokn", preset="default")
    p = cli.run("resolve", "econ.cost.per_tokn", "--preset", "default", expect=2)
    assert e.value.code == 2
    assert "did you mean" in e.value.message
    assert p.stderr.strip() == "gpu-stack: error: " + e.value.message
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.resolve("econ.cost.per_token", preset="no_such_preset")
    assert e.value.code == 2 and "no_such_preset" in str(e.value)
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.resolve("econ.cost.per_token", preset=FIXTURE, assign={"par.n_gpus": "8 W"})
    assert "W" in e.value.message
    with pytest.raises(gpu_stack.Error):
        gpu_stack.Model(image="/no/such/image.gsimg")


def test_variables_and_describe():
    names = gpu_stack.variables("econ.cost.")
    assert "econ.cost.per_token" in names and names == sorted(names)
    d = gpu_stack.describe("econ.cost.per_token")
    assert d["unit"] == "USD/token" and d["kind"] == "derived" and d["system"] == "economics"
    assert d["definitions"] and ".gstack:" in d["location"] and d["description"]
    c = gpu_stack.describe("physics.boltzmann")
    assert c["kind"] == "constant"
    close(c["value"], 1.380649e-23)  # exact SI value since 2019
    assert "default" in gpu_stack.presets()


def test_sweep_columns_match_resolve_and_grid_order(cli):
    s = gpu_stack.sweep(["econ.cost.per_token", "training.tokens_per_sec"], preset=FIXTURE,
                        vary={"econ.job.capex_rate": "0,10,20", "par.n_gpus": [8, 16]})
    assert s.points == 6 and s.engine == "jit" and s.nonfinite == 0
    assert list(s) == ["econ.job.capex_rate", "par.n_gpus", "econ.cost.per_token", "training.tokens_per_sec"]
    assert all(isinstance(c, np.ndarray) and c.dtype == np.float64 and c.shape == (6,) for c in s.values())
    assert list(s["par.n_gpus"]) == [8, 16] * 3  # the last axis varies fastest, as in the CLI
    assert s.units["econ.cost.per_token"] == "USD·token^-1"
    for rate, n, y in zip(s["econ.job.capex_rate"], s["par.n_gpus"], s["econ.cost.per_token"]):
        ref = gpu_stack.resolve("econ.cost.per_token", preset=FIXTURE, assign=[f"econ.job.capex_rate={rate!r} USD/s", f"par.n_gpus={n!r}"])
        close(y, ref.value, rel=1e-12)
    close(s["econ.cost.per_token"][0], 7.8e-11, rel=1e-9)
    j = cli.json("sweep", "econ.cost.per_token", "training.tokens_per_sec", "--preset", FIXTURE,
                 "--vary", "econ.job.capex_rate=0,10,20", "--vary", "par.n_gpus=8,16")
    assert j["targets"][0]["min"] == s["econ.cost.per_token"].min() and j["targets"][0]["max"] == s["econ.cost.per_token"].max()


def test_sweep_values_with_units_zip_and_ginac():
    price = np.linspace(0.02, 0.4, 5)
    a = gpu_stack.sweep("econ.cost.per_token", preset="default", vary={"econ.power.price_kwh_offpeak": price})
    b = gpu_stack.sweep("econ.cost.per_token", preset="default", vary={"econ.power.price_kwh_offpeak": (price / 3.6e6, "USD/J")})
    c = gpu_stack.sweep("econ.cost.per_token", preset="default", vary={"econ.power.price_kwh_offpeak": "0.02..0.4:5"})
    np.testing.assert_allclose(a["econ.power.price_kwh_offpeak"], price / 3.6e6, rtol=1e-15)
    np.testing.assert_allclose(a["econ.cost.per_token"], b["econ.cost.per_token"], rtol=1e-14)
    np.testing.assert_allclose(a["econ.cost.per_token"], c["econ.cost.per_token"], rtol=1e-14)
    z = gpu_stack.sweep("econ.cost.per_token", preset=FIXTURE, zip=True, engine="ginac",
                        vary={"econ.job.capex_rate": [0, 20], "par.n_gpus": [8, 8]})
    close(z["econ.cost.per_token"][0], 7.8e-11, rel=1e-9)
    close(z["econ.cost.per_token"][1], 3.000078e-06, rel=1e-6)


def test_sweep_bad_input_raises():
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.sweep("econ.cost.per_token", preset=FIXTURE, vary={"par.n_gpus": [8, float("nan")]})
    assert e.value.code == 2 and "finite" in e.value.message
    with pytest.raises(gpu_stack.Error):
        gpu_stack.sweep("econ.cost.per_token", preset=FIXTURE, zip=True, vary={"par.n_gpus": [8], "econ.job.capex_rate": [0, 1]})
    with pytest.raises(gpu_stack.Error):
        gpu_stack.sweep("econ.cost.per_token", preset=FIXTURE, vary={"par.n_gpus": "1..2:"})
    with pytest.raises(gpu_stack.Error):
        gpu_stack.sweep("econ.cost.per_token", preset=FIXTURE, vary={"par.n_gpus": [[8, 16]]})


def test_a_million_point_sweep_returns_numpy_arrays():
    s = gpu_stack.sweep("econ.cost.per_token", preset="default", vary={"econ.power.price_kwh_offpeak": "0.02..0.4:1000000"})
    y = s["econ.cost.per_token"]
    assert y.shape == (1_000_000,) and s.nonfinite == 0
    assert np.all(np.diff(y) > 0)  # cost rises with the price of power


def test_uncertainty_matches_cli_for_the_same_seed(cli):
    u = gpu_stack.uncertainty("econ.cost.per_token", preset=UNCERTAIN, samples=20000, seed=7)
    ref = cli.json("uncertainty", "econ.cost.per_token", "--preset", UNCERTAIN, "--samples", "20000", "--seed", "7")
    for key in ("mean", "sd", "median", "p5", "p95", "min", "max", "samples"):
        assert u[key] == ref[key], key
    assert u["histogram"]["counts"] == ref["histogram"]["counts"]
    v = u["values"]
    assert isinstance(v, np.ndarray) and v.shape == (20000,)
    close(float(np.mean(v)), u["mean"], rel=1e-9)
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.uncertainty("econ.cost.per_token", preset="default", samples=0)
    assert "samples" in e.value.message


def test_sensitivity_matches_cli(cli):
    s = gpu_stack.sensitivity("econ.cost.per_token", preset=UNCERTAIN, samples=2000, seed=3)
    ref = cli.json("sensitivity", "econ.cost.per_token", "--preset", UNCERTAIN, "--samples", "2000", "--seed", "3")
    assert [r["name"] for r in s["inputs"]] == [r["name"] for r in ref["inputs"]]
    for a, b in zip(s["inputs"], ref["inputs"]):
        assert a["first_order"] == b["first_order"] and a["total_order"] == b["total_order"]
    assert s["evaluations"] == ref["evaluations"]


def test_plan_matches_cli(cli):
    p = gpu_stack.plan(workload="llama3-405b", preset="h100_16k", top=3)
    ref = cli.json("plan", "--workload", "llama3-405b", "--preset", "h100_16k", "--top", "3")
    assert p["ranked"] and p["ranked"][0]["layout"] == ref["ranked"][0]["layout"]
    assert p["feasible"] == ref["feasible"] and p["enumerated"] == ref["enumerated"]
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.plan(workload="llama9", preset="h100_16k")
    assert e.value.code == 2


def test_simulate_matches_cli(cli):
    scenario = "presets/sim/llama3-405b-16k.toml"
    s = gpu_stack.simulate(scenario, seed=3)
    ref = cli.json("simulate", scenario, "--seed", "3")
    assert s == ref
    with pytest.raises(gpu_stack.Error) as e:
        gpu_stack.simulate(scenario, replicas=10**7)
    assert e.value.code == 2 and "replicas" in e.value.message


def test_validate_matches_cli(cli):
    runs = "data/runs/calibration-runs.csv"
    v = gpu_stack.validate(runs)
    ref = cli.json("validate", "--runs", runs)
    assert v == ref
    with pytest.raises(gpu_stack.Error):
        gpu_stack.validate("/no/such/runs.csv")


def test_explicit_model_and_thread_count_independence():
    m = gpu_stack.Model(image=gpu_stack.default_image_path(), presets="presets")
    assert m.presets_dir == "presets"
    assert m.resolve("econ.cost.per_token", preset="default").value == gpu_stack.resolve("econ.cost.per_token", preset="default").value
    one = m.uncertainty("econ.cost.per_token", preset=UNCERTAIN, samples=10000, seed=5, threads=1)
    two = m.uncertainty("econ.cost.per_token", preset=UNCERTAIN, samples=10000, seed=5, threads=2)
    assert np.array_equal(one["values"], two["values"])  # reproducible for a seed whatever the thread count
    with pytest.raises(gpu_stack.Error) as e:
        m.sweep("econ.cost.per_token", preset="default", vary={"par.dp": "16,32"}, threads=-1)
    assert e.value.code == 2
