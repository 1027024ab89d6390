# Golden cases for the accelerator packs, the MoE workload zoo and the zoo commands (run by
# run_cli_tests.py, whose helpers they use). Datasheet numbers are the vendors' (see each preset's source).

GiB = 2 ** 30
BITS = 8  # --json gives information in its SI base unit, the bit

# hardware preset: (dense BF16 FLOP/s, HBM bytes, HBM B/s, scale-up domain or None, {precision: FLOP/s})
HARDWARE = {
    "h200_sxm": (989.4e12, 141 * GiB, 4.8e12, 8, {"fp8": 1978.9e12}),
    "b200": (2.25e15, None, 8e12, 8, {"fp8": 4.5e15, "nvfp4": 9e15}),
    "gb200": (2.5e15, 186 * GiB, 8e12, 72, {"fp8": 5e15}),
    "b300": (2.25e15, 288 * GiB, 8e12, 8, {"fp8": 4.5e15, "nvfp4": 13.5e15}),
    "gb300": (2.5e15, 288 * GiB, 8e12, 72, {"fp8": 5e15, "nvfp4": 15e15}),
    "tpu_v4": (275e12, 32 * GiB, 1.2e12, None, {}),
    "tpu_v5p": (459e12, 95 * GiB, 2.765e12, None, {}),
    "tpu_v6e": (918e12, 32 * GiB, 1.638e12, None, {}),
    "mi300x": (1307.4e12, 192 * GiB, 5.3e12, 8, {"fp8": 2614.9e12}),
    "mi325x": (1307.4e12, 256 * GiB, 6e12, 8, {"fp8": 2614.9e12}),
    "mi355x": (2516.6e12, 288 * GiB, 8e12, 8, {"fp8": 5033e12, "mxfp4": 10066e12}),
}

PACK_TOL = 0.005  # packs reproduce datasheet figures to 0.5% (rounded vendor numbers)


def _value(cli, target, *args):
    return cli.json("resolve", target, *args, image="model")["value"]


def _within(actual, expected, tol, what):
    check(abs(actual / expected - 1) <= tol, f"{what}: {actual:.6g} vs {expected:.6g} (tolerance {tol:.1%})")


@case
def hardware_packs_reproduce_datasheets(cli):
    for name, (bf16, cap, bw, domain, others) in HARDWARE.items():
        pre = ("--preset", f"hardware/{name}")
        _within(_value(cli, "gpu.peak_flops", *pre, "--variant", "precision.train.peak_multiplier=bf16"), bf16, PACK_TOL, f"{name} BF16 peak")
        for prec, flops in others.items():
            _within(_value(cli, "gpu.peak_flops", *pre, "--variant", f"precision.train.peak_multiplier={prec}"), flops, PACK_TOL, f"{name} {prec} peak")
        if cap:
            _within(_value(cli, "mem.hbm.capacity", *pre) / BITS, cap, PACK_TOL, f"{name} HBM capacity")
        _within(_value(cli, "mem.hbm.bw", *pre) / BITS, bw, PACK_TOL, f"{name} HBM bandwidth")
        if domain:
            _within(_value(cli, "link.nvlink.domain_size", *pre), domain, 0, f"{name} scale-up domain")


# workload: (published total, published active, active counted without the token embedding)
WORKLOADS = {
    "mixtral-8x7b": (46.7e9, 12.9e9, False),
    "mixtral-8x22b": (141e9, 39e9, False),
    "deepseek-v2": (236e9, 21e9, False),
    "deepseek-v3": (671e9, 37e9, False),
    "qwen3-30b-a3b": (30.5e9, 3.3e9, False),
    "qwen3-235b-a22b": (235e9, 22e9, False),
    "gpt-oss-20b": (20.91e9, 3.61e9, True),
    "gpt-oss-120b": (116.83e9, 5.13e9, True),
    "llama4-scout": (109e9, 17e9, False),
    "llama4-maverick": (400e9, 17e9, False),
    "olmoe-1b-7b": (6.9e9, 1.3e9, False),
    "dbrx": (132e9, 36e9, False),
}

COUNT_TOL = 0.02  # derived parameter counts match the published (rounded) ones within 2%


@case
def moe_workloads_match_published_parameter_counts(cli):
    for name, (total, active, no_embed) in WORKLOADS.items():
        _within(_value(cli, "arch.moe.params_total", "--workload", name), total, COUNT_TOL, f"{name} total parameters")
        a = _value(cli, "arch.moe.params_active", "--workload", name)
        if no_embed:
            a -= _value(cli, "arch.embed.params", "--workload", name)
        _within(a, active, COUNT_TOL, f"{name} active parameters")
    # the dense zoo by name, hyphen or underscore
    for spelling in ("llama3-405b", "llama3_405b"):
        _within(_value(cli, "arch.params_total_dense", "--workload", spelling), 405.85e9, 0.001, f"{spelling} parameters")


@case
def unknown_workload_is_bad_input(cli):
    _, err = cli.run("resolve", "arch.n_layers", "--workload", "mixtral-8x7", image="model", expect=2)
    contains(err, "unknown workload 'mixtral-8x7'", "mixtral_8x7b")


MOE_RUN = ("--preset", "default", "--workload", "mixtral-8x7b", "--preset", "packs/run_activity_estimates", "--preset", "software/moe_grouped_gemm",
           "--assign", "arch.seq_len=4096 token", "--assign", "par.ep=8", "--assign", "arch.n_layers=32")


@case
def moe_step_time_prices_experts_and_imbalance(cli):
    """Mixtral 8x7B on the default 2,048-H100 layout: the step includes the grouped expert GEMMs and the
    busiest expert rank; MFU counts active parameters (about 12.9B)."""
    t_step = _value(cli, "training.t_step", *MOE_RUN)
    mfu = _value(cli, "training.mfu", *MOE_RUN)
    check(0.05 < mfu < 0.6, f"MFU in the active-parameter convention is plausible: {mfu}")
    params = _value(cli, "training.scaling_params", *MOE_RUN)
    _within(params, 12.9e9, COUNT_TOL, "MFU's parameter count is the active one")
    balanced = _value(cli, "training.t_step", *MOE_RUN, "--variant", "col.ep.imbalance=measured", "--assign", "col.ep.load_max_over_mean=1")
    skewed = _value(cli, "training.t_step", *MOE_RUN, "--variant", "col.ep.imbalance=measured", "--assign", "col.ep.load_max_over_mean=1.5")
    check(balanced < t_step < skewed, f"a 1.5x expert load slows the step, balance speeds it: {balanced} < {t_step} < {skewed}")
    slow_gemm = _value(cli, "training.t_step", *MOE_RUN, "--assign", "moe.grouped_gemm_efficiency=0.5")
    check(slow_gemm > t_step, "a slower grouped GEMM lengthens the step")


@case
def zoo_lists_name_description_source(cli):
    out, _ = cli.run("workloads", image="model")
    contains(out, "deepseek_v3  DeepSeek-V3:", "source: DeepSeek-AI, DeepSeek-V3 Technical Report", "llama3_405b  Llama 3 405B")
    j = cli.json("hardware", image="model")
    ids = {e["id"] for e in j}
    check({"hardware/mi355x", "hardware/gb300", "hardware/tpu_v6e"} <= ids, f"hardware ids {sorted(ids)}")
    check(all(e["source"] and e["description"] for e in j), "every hardware preset has a description and a source")


MIXTRAL_CONFIG = {
    "architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2, "tie_word_embeddings": False, "max_position_embeddings": 32768,
}
DEEPSEEK_V2_CONFIG = {
    "model_type": "deepseek_v2", "hidden_size": 5120, "intermediate_size": 12288, "moe_intermediate_size": 1536,
    "num_hidden_layers": 60, "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 102400,
    "n_routed_experts": 160, "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
    "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
    "tie_word_embeddings": False,
}
LLAMA_CONFIG = {
    "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False,
}


@case
def workload_import_reads_hf_configs(cli):
    with tempfile.TemporaryDirectory() as d:
        for name, cfg, total, active in (("mixtral", MIXTRAL_CONFIG, 46.7e9, 12.9e9),
                                         ("dsv2", DEEPSEEK_V2_CONFIG, 236e9, 21e9),
                                         ("llama", LLAMA_CONFIG, 8.03e9, None)):
            src = os.path.join(d, name + ".json")
            with open(src, "w") as f:
                json.dump(cfg, f)
            dst = os.path.join(d, name + ".toml")
            cli.run("workload", "import", src, "-o", dst, image="model")
            if active is None:
                _within(_value(cli, "arch.params_total_dense", "--preset", dst), total, COUNT_TOL, f"{name} imported parameters")
                continue
            _within(_value(cli, "arch.moe.params_total", "--preset", dst), total, COUNT_TOL, f"{name} imported total")
            _within(_value(cli, "arch.moe.params_active", "--preset", dst), active, COUNT_TOL, f"{name} imported active")
        with open(os.path.join(d, "dsv2.toml")) as f:
            contains(f.read(), '"arch.attn.params_per_layer" = "mla"', '"arch.moe.n_moe_layers" = 59')
        bad = os.path.join(d, "bad.json")
        with open(bad, "w") as f:
            f.write('{\n  "hidden_size": 4096,\n  "num_hidden_layers": 32 x\n}\n')
        _, err = cli.run("workload", "import", bad, image="model", expect=2)
        contains(err, bad + ":3:", "not valid JSON")
        check(not os.path.exists(os.path.join(d, "bad.toml")), "nothing written for bad input")
