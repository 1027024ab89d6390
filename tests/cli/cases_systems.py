# Golden cases for the cluster and capex packs of the systems the accelerators ship in (issue 13 item 4):
# each system layered over the default scenario (hardware, cluster, capex) resolves its node and rack
# capital cost exactly as its pack's arithmetic says, its node and rack power below the vendor's
# nameplate, and a cost per GPU-hour pinned with a tolerance. Run by run_cli_tests.py.

# system: (layers, node capex USD, rack capex USD, node power W, nameplate W per node or rack, which,
#          ownership cost USD per GPU-hour)
SYSTEMS = {
    # DGX A100: ($199,000 - $50,000 host) / 8 per GPU + the $49,998 host = $198,998 per node.
    "dgx_a100": (["hardware/a100_sxm_80gb", "cluster/dgx_a100", "capex/dgx_a100_2020"], 198998, None, 5274, 6500, "node", 1.062),
    # DGX B200: $58,125 x 8 + $49,998 = $514,998 (the listed ~$515k).
    "dgx_b200": (["hardware/b200", "cluster/dgx_b200", "capex/dgx_b200_2025"], 514998, None, 10000, 14300, "node", 2.400),
    # GB200 NVL72: a tray of 4 GPUs at $41,667, nothing else priced inside the rack: 72 x $41,667.
    "gb200_nvl72": (["hardware/gb200", "cluster/gb200_nvl72", "capex/gb200_nvl72_2025"], 166668, 3000024, 5933, 120000, "rack", 1.692),
    "gb300_nvl72": (["hardware/gb300", "cluster/gb300_nvl72", "capex/gb300_nvl72_2025"], 194444, 3499992, 6714, 142000, "rack", 1.918),
    # TPU v5p: 4 chips x $15,000 prior per host; 16 hosts + $0.15/W x 50 kW of rack distribution.
    "tpu_v5p_slice": (["hardware/tpu_v5p", "cluster/tpu_v5p_slice", "capex/tpu_v5p_2024"], 60000, 967500, 2717, 50000, "rack", 0.825),
    # MI300X: 8 x $15,000 + $49,998 host.
    "mi300x_node": (["hardware/mi300x", "cluster/mi300x_node", "capex/mi300x_2024"], 169998, None, 8040, 40000, "rack", 1.005),
}

CAPEX_TOL = 1e-6   # pure arithmetic of the packs
MODEL_TOL = 0.05   # power and hourly cost come through the model, which others improve; 5% catches a broken pack


def _resolve(cli, target, layers):
    args = ["--preset", "default"]
    for layer in layers:
        args += ["--preset", layer]
    return cli.json("resolve", target, *args, image="model")["value"]


def _near(actual, expected, tol, what):
    check(abs(actual / expected - 1) <= tol, f"{what}: {actual:.6g} vs {expected:.6g} (tolerance {tol:.1%})")


@case
def system_packs_resolve_capex_power_and_hourly_cost(cli):
    for name, (layers, node_capex, rack_capex, node_w, nameplate_w, scope, usd_per_gpu_hour) in SYSTEMS.items():
        _near(_resolve(cli, "econ.node.capex", layers), node_capex, CAPEX_TOL, f"{name} node capex")
        if rack_capex:
            _near(_resolve(cli, "econ.rack.capex", layers), rack_capex, CAPEX_TOL, f"{name} rack capex")
        node_power = _resolve(cli, "cluster.node.power", layers)
        _near(node_power, node_w, MODEL_TOL, f"{name} node power")
        drawn = node_power if scope == "node" else _resolve(cli, "cluster.rack.power", layers)
        check(0.5 * nameplate_w < drawn < nameplate_w, f"{name}: {scope} power {drawn:.0f} W within the {nameplate_w} W nameplate")
        _near(_resolve(cli, "econ.gpu.price_hour", layers) * 3600, usd_per_gpu_hour, MODEL_TOL, f"{name} USD per GPU-hour")


@case
def hardware_lists_the_system_packs(cli):
    j = cli.json("hardware", image="model")
    ids = {e["id"] for e in j}
    systems = {f"cluster/{n}" for n in SYSTEMS} | {
        "capex/dgx_a100_2020", "capex/dgx_b200_2025", "capex/gb200_nvl72_2025", "capex/gb300_nvl72_2025",
        "capex/tpu_v5p_2024", "capex/mi300x_2024"}
    check(systems <= ids, f"missing {sorted(systems - ids)}")
    check(all(e["source"] and e["description"] and "error" not in e for e in j), "every pack loads, with a description and a source")
    out, _ = cli.run("hardware", image="model")
    contains(out, "hardware:\n", "\ncluster:\n", "\ncapex:\n", "gb200_nvl72  GB200 NVL72 rack", "tpu_v5p_2024  TPU v5p capital cost: no public price")


@case
def capex_without_a_public_price_is_a_named_prior_with_a_range(cli):
    # GB300 NVL72 and TPU v5p have no public price: the GPU price is the named root econ.gpu.capex, a
    # stated prior whose [uncertainty] range (not the default scenario's H100 range) gives the interval.
    for system, prior, low, high in (("gb300_nvl72", 48611, 41667, 55556), ("tpu_v5p_slice", 15000, 8000, 30000)):
        args = ["--preset", "default"]
        for layer in SYSTEMS[system][0]:
            args += ["--preset", layer]
        j = cli.json("resolve", "econ.gpu.capex", *args, image="model")
        _near(j["value"], prior, CAPEX_TOL, f"{system} prior")
        i = j["interval"]
        check(low <= i["p5"] < prior < i["p95"] <= high, f"{system}: 90% interval {i} inside the pack's {low}-{high} USD range")
