// Validation that transfers: the mapping's data table, cells written as "16M" or "n/a", several CSVs read
// as one, the search over unstated settings (its pluggable seam and the exhaustive engine), the 90%
// intervals, and the leave-one-family-out cross-validation numbers docs/calibration.md quotes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runtime/format.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/validate/calibrate.h"
#include "runtime/validate/crossval.h"
#include "runtime/validate/engine.h"
#include "runtime/validate/mapping.h"
#include "runtime/validate/mapping_table.h"
#include "runtime/validate/runs.h"
#include "runtime/validate/search.h"
#include "runtime/validate/validate.h"
#include "tests/unit/support/shipped_model.h"

using namespace gs::validate;

namespace {

const gs::Registry& model() { return gs::testing::shipped_model(); }

const gs::PresetLibrary& presets() { return gs::testing::shipped_presets(); }

const std::string kRuns = std::string(GSTACK_DATA_DIR) + "/runs/calibration-runs.csv";
const std::string kSupplement = std::string(GSTACK_DATA_DIR) + "/runs/calibration-supplement.csv";

// A pipelined GPT row that states neither micro-batch, interleaving nor recomputation.
RunRow pipelined_row() {
  RunRow r;
  r.line = 2;
  r.cells = {{"id", "t-pp"},         {"tier", "A"},           {"source_group", "test"},   {"params_b", "39.1"},
             {"layers", "48"},       {"hidden", "8192"},      {"heads", "64"},            {"seq_len", "2048"},
             {"global_batch_seqs", "1536"}, {"vocab", "51200"}, {"precision", "bf16"},
             {"hardware", "A100-SXM4-80GB"}, {"gpu_count", "512"}, {"tp", "8"},           {"pp", "2"},
             {"tflops_per_gpu", "138"}, {"utilization_definition", "Eq. 3"}, {"source", "test 2021"}};
  return r;
}

bool has_assumption(const RowScenario& s, const std::string& text) {
  for (const auto& a : s.assumptions)
    if (a.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("cells: suffixed counts, n/a, ranges and ramps are read with the reading stated") {
  CellNumber c = read_cell_number("16M");
  REQUIRE(c.value);
  CHECK(*c.value == 16e6);
  CHECK(c.reading.find("read as 16000000") != std::string::npos);
  CHECK(*read_cell_number("2.5K").value == 2500);
  CHECK(*read_cell_number("~1.5B").value == 1.5e9);
  CHECK(*read_cell_number("2048").value == 2048);
  CHECK(read_cell_number("2048").reading.empty());
  for (const char* empty : {"n/a", "N/A", "-", "unknown"}) {
    CellNumber e = read_cell_number(empty);
    CHECK_MESSAGE(e.ok, empty);
    CHECK(!e.value);
    CHECK(e.reading.find("read as empty") != std::string::npos);
  }
  CellNumber range = read_cell_number("4-8");
  CHECK((range.ok && !range.value && range.reading.find("range") != std::string::npos));
  CellNumber ramp = read_cell_number("1024->4096");
  CHECK((ramp.ok && !ramp.value && ramp.reading.find("ramp") != std::string::npos));
  CHECK(!read_cell_number("lots").ok);
}

TEST_CASE("a row's '16M' and 'n/a' cells are listed among its assumptions") {
  RunRow r = pipelined_row();
  r.cells.erase("global_batch_seqs");
  r.cells["global_batch_tokens"] = "3145728";
  r.cells["micro_batch"] = "n/a";
  r.cells["training_tokens"] = "300B";
  RowScenario s = map_row(model(), presets(), r);
  REQUIRE_MESSAGE(s.unbuildable.empty(), s.unbuildable);
  CHECK(has_assumption(s, "micro_batch: 'n/a' read as empty"));
  CHECK(s.unstated.count("micro_batch"));
  CHECK(s.assign.at("training.total_tokens") == 3e11);
}

TEST_CASE("mapping table: the shipped file names model variables only in data, and bad files say where") {
  const MappingTable& t = mapping_table(presets().dir());
  for (const auto& [role, var] : t.variables) CHECK_MESSAGE(model().find_var(var), role << " -> " << var);
  for (const auto& [metric, var] : t.targets) CHECK_MESSAGE(model().find_var(var), metric << " -> " << var);
  for (const auto& var : t.breakdown) CHECK_MESSAGE(model().find_var(var), var);
  for (const auto& f : t.fit) CHECK_MESSAGE(model().find_var(f.name), f.name);
  CHECK(t.fit.size() == 2);  // overlap shares are schedule physics ([[schedule]]) and attention runs at each part's measured rate
  for (const auto& f : t.fit) CHECK_MESSAGE(f.name.find("overlap") == std::string::npos, f.name);
  CHECK(t.unstated_knob("micro_batch").knob == "mb");  // each unstated setting names its knob of the strategy search
  CHECK(t.unstated_knob("micro_batch").values == std::vector<double>{1, 2, 4, 8});
  CHECK(t.unstated_knob("recompute").values == std::vector<double>{0, 2});  // recompute modes: none, full
  CHECK_THROWS_WITH_AS(t.unstated_knob("zero"), doctest::Contains("[unstated] has no entry 'zero'"), MappingError);
  CHECK(t.near_best_pct == 5);
  CHECK(*match_hardware(t, "TPU v5p") == "validate/hardware/tpu_v5p");
  CHECK(*match_hardware(t, "H100 SXM 96GB HBM2e (Meta Grand Teton)") == "validate/hardware/h100_sxm");
  // A new accelerator is one more rule.
  MappingTable local = parse_mapping_table("default_runs = []\n[presets]\n[variables]\n[constants]\n[variants]\n[precision]\n[targets]\n"
                                           "[breakdown]\n[unstated]\n[[hardware]]\npreset = \"validate/hardware/x9\"\nall = [\"X-9\"]\n",
                                           "m.toml");
  CHECK(*match_hardware(local, "Acme x9 (liquid)") == "validate/hardware/x9");
  CHECK_THROWS_WITH_AS(parse_mapping_table("[presets\n", "m.toml"),
                       "m.toml:1:9: malformed TOML: Error while parsing table header: expected ']', saw '\\n'; "
                       "hint: check the TOML syntax at that position", MappingError);
  CHECK_THROWS_WITH_AS(parse_mapping_table("colour = 1\n", "m.toml"), doctest::Contains("m.toml:1:1: unknown key 'colour'"), MappingError);
  CHECK_THROWS_WITH_AS(parse_mapping_table("[presets]\n[variables]\n[constants]\n[variants]\n[precision]\n[targets]\n[breakdown]\n"
                                           "[unstated]\n[[hardware]]\npreset = \"p\"\nall = [\"x\"]\ncolour = 1\n",
                                           "m.toml"),
                       doctest::Contains("m.toml:12:1: unknown key 'colour' in a [[hardware]] entry"), MappingError);
  CHECK_THROWS_WITH_AS(local.var("layers"), doctest::Contains("[variables] has no entry 'layers'"), MappingError);
  CHECK_THROWS_WITH_AS(parse_mapping_table("[presets]\n[variables]\n[constants]\n[variants]\n[precision]\n[targets]\n[breakdown]\n"
                                           "[unstated]\nmicro_batch = [1, 2]\n[[hardware]]\npreset = \"p\"\nall = [\"x\"]\n",
                                           "m.toml"),
                       doctest::Contains("m.toml:9:"), MappingError);  // the old list form: a knob must be named
  // A fact's cell may name another column of the row, written {column}, and nothing else with braces.
  const std::string head = "[presets]\n[variables]\n[constants]\n[variants]\n[precision]\n[targets]\n[breakdown]\n"
                           "[unstated]\n[[hardware]]\npreset = \"p\"\nall = [\"x\"]\n[[model_facts]]\nframework = [\"fw 1\"]\n";
  MappingTable refs = parse_mapping_table(head + "cells = { grad_accum = \"{pp}\" }\nsource = \"s\"\n", "m.toml");
  REQUIRE(refs.model_facts.size() == 1);
  CHECK(refs.model_facts[0].framework == std::vector<std::string>{"fw1"});
  CHECK(refs.model_facts[0].cells.at("grad_accum") == "{pp}");
  CHECK_THROWS_WITH_AS(parse_mapping_table(head + "cells = { grad_accum = \"{pp\" }\nsource = \"s\"\n", "m.toml"),
                       doctest::Contains("m.toml:14:24: cells.grad_accum = '{pp': a reference to another column is written {column}"), MappingError);
}

TEST_CASE("several CSVs read as one table, each row keeping its file") {
  auto rows = read_runs(std::vector<std::string>{kRuns, kSupplement});
  CHECK(rows.size() == 54 + 60);
  CHECK(rows.front().file == kRuns);
  CHECK(rows.back().file == kSupplement);
  auto defaults = default_runs_paths(presets().dir(), GSTACK_DATA_DIR);
  REQUIRE(defaults.size() == 2);
  CHECK(defaults[0] == kRuns);
  CHECK(defaults[1].find("calibration-supplement.csv") != std::string::npos);
}

TEST_CASE("search seam: a pluggable engine's best candidate is applied and the near-best spread reported") {
  RowScenario s = map_row(model(), presets(), pipelined_row());
  REQUIRE_MESSAGE(s.unbuildable.empty(), s.unbuildable);
  CHECK(s.unstated.count("micro_batch"));
  CHECK(s.unstated.count("interleave"));
  CHECK(s.unstated.count("recompute"));
  size_t calls = 0;
  const double m = s.assign.at("par.batch.grad_accum_steps");
  auto candidate = [&](double mb, double vp, const char* recompute, double tput, double primary) {
    RankedCandidate c;
    c.settings = {{"micro_batch", gs::format_number(mb)}, {"interleave", gs::format_number(vp)}, {"recompute", std::string(recompute)}};
    c.assign = {{"par.batch.micro_per_gpu", mb}, {"par.batch.grad_accum_steps", m / mb}, {"par.pp.virtual_stages", vp}};
    c.tokens_per_s = tput, c.primary = primary;
    return c;
  };
  SearchEngine fake = [&](const SearchProblem& p) {
    ++calls;
    CHECK(p.knobs.size() == 3);
    SearchResult r;
    r.ranked = {candidate(2, 2, "none", 1000, 150), candidate(1, 2, "none", 970, 145.5) /* within 5% */, candidate(1, 1, "full", 800, 120)};
    r.variants = {{"par.pp.bubble_fraction", "interleaved"}};
    r.evaluated = 3;
    return r;
  };
  SearchChoice c = choose_unstated(presets(), s, fake);
  CHECK(calls == 1);
  REQUIRE(c.searched);
  CHECK(c.near_best == 2);
  CHECK(c.spread_lo == doctest::Approx(145.5 / 150));
  CHECK(c.spread_hi == 1);
  CHECK(c.scenario.assign.at("par.batch.micro_per_gpu") == 2);
  CHECK(c.scenario.assign.at("par.batch.grad_accum_steps") == s.assign.at("par.batch.grad_accum_steps") / 2);
  CHECK(c.scenario.assign.at("par.pp.virtual_stages") == 2);
  CHECK(c.scenario.variants.at("par.pp.bubble_fraction") == "interleaved");
  CHECK(has_assumption(c.scenario, "chosen by search: interleave 2; micro_batch 2; recompute none;"));
  CHECK(!has_assumption(c.scenario, "micro_batch not given: 1"));
}

TEST_CASE("validate's search is plan's strategy search: candidates ranked by throughput, layouts and HBM capacity respected") {
  RowScenario s = map_row(model(), presets(), pipelined_row());
  REQUIRE(s.unbuildable.empty());
  Engine engine(model(), presets());
  const SearchProblem problem = search_problem(presets(), s);
  REQUIRE(problem.knobs.size() == 3);
  for (const auto& k : problem.knobs) CHECK(!k.knob.empty());  // each setting names its knob of knobs.toml
  SearchResult r = strategy_search(engine, presets(), problem);
  REQUIRE_MESSAGE(r.error.empty(), r.error);
  CHECK(r.memory_checked);
  // 4 micro-batches x 3 interleaves x 2 recompute modes; 48 layers over 2 stages allow v = 1, 2, 4.
  CHECK(r.evaluated + r.rejected_layout == 24);
  REQUIRE(!r.ranked.empty());
  for (size_t i = 1; i < r.ranked.size(); ++i) CHECK(r.ranked[i - 1].tokens_per_s >= r.ranked[i].tokens_per_s);
  // Without recomputation a 39B model on 8 x 2 A100s with micro-batch 8 does not fit: some are rejected.
  CHECK(r.rejected_memory > 0);
  // The old defaults (micro-batch 1, no interleaving, no recomputation) would be faster still, but their
  // activations do not fit in 80 GB: the search rejects them instead of reporting an impossible layout.
  PreparedRow d = engine.prepare(s, {}, {"training.tokens_per_sec_nominal", "training.mem.hbm_required_per_gpu", "gpu.hbm.capacity"});
  REQUIRE_MESSAGE(d.ok(), d.error);
  const auto out = engine.evaluate(d);
  CHECK(out[d.extra_out[1]] > out[d.extra_out[2]]);
  for (const auto& c : r.ranked)
    CHECK(!(c.settings.at("micro_batch") == "1" && c.settings.at("interleave") == "1" && c.settings.at("recompute") == "none"));
  CHECK(r.ranked.front().settings.at("recompute") == "full");
  // The candidate sets the search's variables: the micro-batch and, derived from it, the accumulation count.
  const auto& best = r.ranked.front().assign;
  CHECK(best.at("par.batch.micro_per_gpu") * best.at("par.batch.grad_accum_steps") ==
        doctest::Approx(s.assign.at("par.batch.micro_per_gpu") * s.assign.at("par.batch.grad_accum_steps")));
  CHECK(r.variants.at("par.act.recompute_fraction") == "mode");
  // A micro-batch that does not divide the sequences per replica is a layout rejection.
  SearchProblem odd = problem;
  for (auto& k : odd.knobs)
    if (k.setting == "micro_batch") k.values = {7};
  SearchResult o = strategy_search(engine, presets(), odd);
  CHECK(o.ranked.empty());
  CHECK(o.rejected_layout == o.evaluated + o.rejected_layout);
}

TEST_CASE("intervals: every built row's throughput has a 90% interval around its prediction") {
  auto rows = read_runs(kRuns);
  ValidationReport rep = run_validation(model(), presets(), rows, kRuns);
  REQUIRE(rep.uncertainty);
  CHECK(rep.uncertainty->sigma > 0);
  size_t with_interval = 0, covered = 0;
  for (const auto& r : rep.rows) {
    if (!r.built() || !r.primary) continue;
    const auto& m = r.metrics[*r.primary];
    REQUIRE(std::isfinite(r.interval_lo));
    CHECK(r.interval_lo < m.predicted);
    CHECK(r.interval_hi > m.predicted);
    ++with_interval;
    covered += m.observation.reported >= r.interval_lo && m.observation.reported <= r.interval_hi;
  }
  // 38 rows of calibration-runs.csv since Narayanan et al.'s Table 2 and Megatron-LM's 2019 rows are built (24 before).
  CHECK(with_interval == 38);
  CHECK(covered >= 32);  // in sample the intervals cover nearly every row
}

TEST_CASE("golden: leave-one-family-out cross-validation over all published rows") {
  auto rows = read_runs(std::vector<std::string>{kRuns, kSupplement});
  CrossValidation cv = cross_validate_families(model(), presets(), rows, "all", default_fit_parameters(model(), presets()));
  MESSAGE("overall: n " << cv.overall.n << ", median " << cv.overall.median_ape << "%, mean " << cv.overall.mean_ape << "%, MFU rule "
                        << cv.overall.baseline_median_ape << "% / " << cv.overall.baseline_mean_ape << "%, coverage " << cv.overall.coverage);
  CHECK(cv.rows_read == 114);
  // 89 rows with a throughput comparison (TPU v4/v5p/v6e, the MoE rows incl. torchao's GB200 Scout rows,
  // torchtitan's 405B pipeline rows, Narayanan et al.'s Table 2 and Megatron-LM's 2019 V100 rows), ten families.
  CHECK(cv.overall.n == 89);
  CHECK(cv.families.size() == 10);
  // Pinned (docs/calibration.md, round 8): the model beats the constant-MFU rule overall, out of sample
  // (memory-checked search, overlap from the frameworks' schedules, DeepSpeed 2021's ZeRO-3 traffic serialised
  // with compute, the GB200's measured matmul rate, Megatron-LM 2021's elementwise passes, JAX's remat skipping
  // the FFN output projection; the targets of
  // issue 13, median <= 6% and mean <= 9%, are not met; the 90% intervals cover within the 80-95% target).
  // Round 9: a parameter no fitted row depends on stays at its start (the fold without Narayanan et al. 2021
  // fitted its score passes to wherever the simplex stopped, 2.14; 7.1% / 16.5% in round 8). Round 7b: 9.4% / 21.3% / 0.888.
  // Round 9 also prices the MPT rows' attention at the FlashAttention-1 rate they ran (8.2% / 16.6% before).
  CHECK(cv.overall.median_ape == doctest::Approx(7.6).epsilon(0.08));
  CHECK(cv.overall.mean_ape == doctest::Approx(16.8).epsilon(0.08));
  CHECK(cv.overall.baseline_median_ape == doctest::Approx(37.6).epsilon(0.08));
  CHECK(cv.overall.baseline_mean_ape == doctest::Approx(69.8).epsilon(0.08));
  CHECK(cv.overall.median_ape < cv.overall.baseline_median_ape);
  CHECK(cv.overall.coverage == doctest::Approx(0.921).epsilon(0.03));
  CHECK(cv.overall.coverage >= 0.80);
  CHECK(cv.overall.coverage <= 0.95);
  size_t better = 0;
  for (const auto& f : cv.families) better += f.summary.median_ape < f.summary.baseline_median_ape;
  CHECK(better >= 8);
  // A parameter no fitted row depends on keeps its documented start: without Narayanan et al. 2021's rows no
  // fitted row materialises its attention scores, so that fold predicts them with the counted 4 passes, not with
  // wherever the simplex happened to stop (2.14 in round 8).
  bool checked = false;
  for (const auto& f : cv.families) {
    if (f.family != "Megatron-LM (Narayanan 2021)") continue;
    for (size_t i = 0; i < cv.parameters.size(); ++i) {
      if (cv.parameters[i].name != "kernel.attn.score_passes") continue;
      CHECK(f.values[i] == cv.parameters[i].start);
      checked = true;
    }
  }
  CHECK(checked);
  std::set<std::string> ids;
  for (const auto& r : cv.rows) {
    CHECK(r.interval_lo < r.predicted);
    CHECK(r.interval_hi > r.predicted);
    ids.insert(r.id);
  }
  CHECK(ids.size() == cv.rows.size());
}

namespace {

// The published row with this id, from either table.
RunRow published_row(const std::string& id) {
  for (const auto& r : read_runs(std::vector<std::string>{kRuns, kSupplement}))
    if (r.id() == id) return r;
  FAIL("no row " << id);
  return {};
}

// A variable of a mapped row's scenario, resolved by the GiNaC resolver.
double resolved(const RowScenario& s, const char* var) {
  ResolvedScenario rs = resolve_scenario(model(), presets(), s);
  gs::Resolver resolver(model(), rs.assignments, rs.variants);
  auto r = resolver.resolve(*model().find_var(var));
  REQUIRE_MESSAGE(r.number, var);
  return *r.number;
}

}  // namespace

TEST_CASE("mixture-of-experts rows map onto the MoE model: expert layout, EP, active-parameter convention") {
  RowScenario s = map_row(model(), presets(), published_row("mcore-moe-readme-mixtral8x7b-v0.9"));
  REQUIRE_MESSAGE(s.unbuildable.empty(), s.unbuildable);
  CHECK(std::find(s.presets.begin(), s.presets.end(), "validate/moe") != s.presets.end());
  CHECK(s.assign.at("arch.moe.n_experts") == 8);
  CHECK(s.assign.at("arch.moe.active_experts") == 2);
  CHECK(s.assign.at("arch.moe.shared_expert_count") == 0);
  CHECK(s.assign.at("arch.moe.d_ffn_expert") == 14336);
  CHECK(s.assign.at("arch.moe.n_moe_layers") == 32);
  CHECK(s.assign.at("par.ep") == 8);
  // Mixtral 8x7B: 46.7B stored and 12.9B active parameters (Jiang et al. 2024 Sec. 2), within 2%.
  CHECK(resolved(s, "arch.moe.params_total") == doctest::Approx(46.7e9).epsilon(0.02));
  CHECK(resolved(s, "training.scaling_params") == doctest::Approx(12.9e9).epsilon(0.02));
  // "all-but-first-N" leaves the first N layers dense.
  RunRow first_dense = published_row("mcore-moe-readme-mixtral8x7b-v0.9");
  first_dense.cells["moe"] = "experts=8;top_k=2;shared=0;expert_ffn=14336;moe_layers=all-but-first-1;dropless";
  RowScenario fd = map_row(model(), presets(), first_dense);
  REQUIRE_MESSAGE(fd.unbuildable.empty(), fd.unbuildable);
  CHECK(fd.assign.at("arch.moe.n_moe_layers") == 31);
  // A stated capacity factor pads the routed buffers; the stated active count is the utilization's N.
  RowScenario t = map_row(model(), presets(), published_row("mtx-v6e-moe700b-final-1pod"));
  REQUIRE_MESSAGE(t.unbuildable.empty(), t.unbuildable);
  CHECK(t.assign.at("arch.moe.capacity_factor") == 1.5);
  CHECK(t.variants.at("arch.moe.padding_factor") == "padded");
  CHECK(t.assign.at("training.scaling_params") == 123e9);
  CHECK(t.hardware_preset == "validate/hardware/tpu_v6e");
}

TEST_CASE("a stated board power limit lowers the sustained clock: torchao's 750 W B200 rows") {
  RowScenario s = map_row(model(), presets(), published_row("tao-b200-8b-bf16"));
  REQUIRE_MESSAGE(s.unbuildable.empty(), s.unbuildable);
  CHECK(s.assign.at("gpu.tdp") == 750);
  // The B200's floor comes from NVIDIA's ratings of the same package (validate/hardware/b200): 1.75 PFLOP/s
  // dense BF16 at 700 W (B100) and 2.25 at 1000 W (HGX B200), so a = (0.7 - (1.75/2.25)^3) / (1 -
  // (1.75/2.25)^3) = 0.4334, written 0.433. Clock ratio ((750/1000 - 0.433) / 0.567)^(1/3) = 0.8238 (exponent
  // 3, validate/base; 0.8736 with base's assumed floor 0.25); the roof is 1745 TFLOP/s x 0.8238 = 1437.5 TFLOP/s.
  CHECK(resolved(s, "gpu.dvfs.floor_fraction") == doctest::Approx(0.433));
  CHECK(resolved(s, "gpu.dvfs.clock_ratio") == doctest::Approx(0.82381).epsilon(1e-4));
  CHECK(resolved(s, "gpu.peak_flops_power_limited") == doctest::Approx(1437.5e12).epsilon(1e-3));
  // A row without a stated limit keeps the measured ceiling.
  RowScenario f = map_row(model(), presets(), published_row("ttrainy-h200-8b-32g"));
  REQUIRE_MESSAGE(f.unbuildable.empty(), f.unbuildable);
  CHECK(!f.assign.count("gpu.tdp"));
  CHECK(resolved(f, "gpu.dvfs.clock_ratio") == doctest::Approx(1));
  // torchtitan's H100s at their 500 W default limit: ((500/700 - 0.25) / 0.75)^(1/3) = 0.8523.
  RowScenario h = map_row(model(), presets(), published_row("tt24-t2-8b-cp1-s32k"));
  REQUIRE_MESSAGE(h.unbuildable.empty(), h.unbuildable);
  CHECK(h.assign.at("gpu.tdp") == 500);
  CHECK(resolved(h, "gpu.dvfs.clock_ratio") == doctest::Approx(0.85227).epsilon(1e-4));
}

TEST_CASE("TPU, V100 and GB200 rows are built on their validate hardware") {
  for (const auto& [id, preset] : std::vector<std::pair<std::string, std::string>>{{"mtx-v4-22b-1x128", "validate/hardware/tpu_v4"},
                                                                                   {"mtx-v5p-32b-1x128", "validate/hardware/tpu_v5p"},
                                                                                   {"mtx-v6e-moe700b-final-4pod", "validate/hardware/tpu_v6e"}}) {
    RowScenario s = map_row(model(), presets(), published_row(id));
    CHECK_MESSAGE(s.unbuildable.empty(), id << ": " << s.unbuildable);
    CHECK(s.hardware_preset == preset);
  }
  // The V100 rows of Megatron-LM 2019 are built with the sequence length the paper states for all its GPT-2 runs.
  RowScenario v100 = map_row(model(), presets(), published_row("meg19-1.2b-1gpu"));
  REQUIRE_MESSAGE(v100.unbuildable.empty(), v100.unbuildable);
  CHECK(v100.hardware_preset == "validate/hardware/v100_sxm");
  // torchao's GB200 Scout rows state only the local batch (1) and FSDP 256: torchtitan's global batch is their
  // product (no gradient accumulation by default), 256 sequences.
  RowScenario scout = map_row(model(), presets(), published_row("tao-gb200-scout-bf16"));
  REQUIRE_MESSAGE(scout.unbuildable.empty(), scout.unbuildable);
  CHECK(scout.assign.at("par.batch.grad_accum_steps") == 1);
  CHECK(has_assumption(scout, "global batch not given: micro_batch x grad_accum x dp = 256 sequences"));
  CHECK(has_assumption(scout, "grad_accum not given: 1 from torchtitan's default"));
  CHECK(std::find(scout.presets.begin(), scout.presets.end(), "validate/grouped_gemm/b200") != scout.presets.end());
  // Their roof is the GB200's own measured matmul rate (Bekman's MAMF table: 1822.0 TFLOP/s BF16, 3615.6 FP8),
  // at the GB200's 1200 W limit, not the B200's share of peak carried over (1940 and 3815 until round 8).
  CHECK(resolved(scout, "gpu.matmul.measured_flops") == doctest::Approx(1822e12).epsilon(1e-9));
  CHECK(resolved(scout, "gpu.peak_flops_power_limited") == doctest::Approx(1822e12).epsilon(1e-9));
  RowScenario scout8 = map_row(model(), presets(), published_row("tao-gb200-scout-mxfp8"));
  REQUIRE_MESSAGE(scout8.unbuildable.empty(), scout8.unbuildable);
  CHECK(resolved(scout8, "gpu.matmul.measured_flops") == doctest::Approx(3615.6e12).epsilon(1e-9));
  CHECK(resolved(scout8, "kernel.attn.precision_rate_ratio") == doctest::Approx(1822 / 3615.6).epsilon(1e-3));
  for (const char* hw : {"V100-SXM3-32GB (DGX-2H, DGX SuperPOD)", "GB200 (64 nodes x 4 GPUs)"}) {
    auto p = hardware_preset_for(presets(), hw);
    REQUIRE(p);
    CHECK_NOTHROW(presets().load(*p));
  }
  // The TPU roof is the fixed-clock MXU peak: 2 x 4 x 128 x 128 x 2 FLOP x 1050 MHz = 275 TFLOP/s on v4.
  RowScenario v4 = map_row(model(), presets(), published_row("mtx-v4-22b-1x128"));
  CHECK(resolved(v4, "gpu.peak_flops_power_limited") == doctest::Approx(275e12).epsilon(1e-6));
}

TEST_CASE("stated recomputation is read through the [[recompute]] rules, first match wins") {
  // MaxText's remat_policy=full re-runs the layer (it was once read as no recomputation), except the FFN output
  // projection, which jax.checkpoint does not recompute since no gradient reads its result (round 8): the model
  // derives 1 - that projection's share of the forward FLOPs.
  RowScenario v4 = map_row(model(), presets(), published_row("mtx-v4-22b-1x128"));
  REQUIRE_MESSAGE(v4.unbuildable.empty(), v4.unbuildable);
  CHECK(!v4.assign.count("par.act.recompute_fraction"));
  CHECK(v4.variants.at("par.act.recompute_fraction") == "all_but_ffn_output");
  CHECK(resolved(v4, "par.act.recompute_fraction") == doctest::Approx(1 - 2 * resolved(v4, "arch.act.ffn_output_params") / (resolved(v4, "arch.flops.per_token_moe") / 3)).epsilon(1e-9));
  CHECK(resolved(v4, "par.act.recompute_fraction") < 0.8);
  CHECK(v4.variants.at("arch.act.values_per_token_dim") == "full");
  // remat_policy=minimal saves the weight GEMMs' outputs: nothing of the GEMMs is re-run, selective memory.
  RowScenario v5 = map_row(model(), presets(), published_row("mtx-v5p-32b-1x128"));
  CHECK(v5.assign.at("par.act.recompute_fraction") == 0);
  CHECK(v5.variants.at("arch.act.values_per_token_dim") == "selective");
  // ... but the attention products carry batch dimensions, so the attention core is re-run.
  CHECK(v5.assign.at("par.act.attn_recompute_fraction") == 1);
  // torchtitan's per-op SAC counts a block's matmuls in forward order (wq, wk, wv, wo, w1, w3, w2) and re-runs
  // the even ones: wk, wo and w3, (1024 + 4096 + 14336) / (4096 + 1024 + 1024 + 4096 + 3 x 14336) = 19456 /
  // 53248 of a Llama 3 8B block's GEMM FLOPs, derived by the model (not half). On H200 it saves the
  // flash-attention output (attention 0); on B200 SDPA runs cuDNN's kernel, which that commit's save list
  // lacks, so the attention core is re-run (the rule restricted by `hardware`).
  RowScenario tao = map_row(model(), presets(), published_row("tao-b200-8b-bf16"));
  CHECK(!tao.assign.count("par.act.recompute_fraction"));
  CHECK(tao.variants.at("par.act.recompute_fraction") == "every_second_matmul");
  CHECK(resolved(tao, "par.act.recompute_fraction") == doctest::Approx(19456.0 / 53248.0).epsilon(1e-9));
  CHECK(tao.assign.at("par.act.attn_recompute_fraction") == 1);
  CHECK(has_assumption(tao, "per-op selective checkpointing"));
  RowScenario h200 = map_row(model(), presets(), published_row("ttrainy-h200-8b-32g"));
  REQUIRE_MESSAGE(h200.unbuildable.empty(), h200.unbuildable);
  CHECK(h200.variants.at("par.act.recompute_fraction") == "every_second_matmul");
  CHECK(resolved(h200, "par.act.recompute_fraction") == doctest::Approx(19456.0 / 53248.0).epsilon(1e-9));
  CHECK(h200.assign.at("par.act.attn_recompute_fraction") == 0);
  // The attention core's share is priced where attention time is: the H200 step with attention saved is
  // shorter than the same step with it re-run by exactly one attention forward per layer and micro-batch.
  RowScenario h200_rerun = h200;
  h200_rerun.assign["par.act.attn_recompute_fraction"] = 1;
  CHECK(resolved(h200_rerun, "kernel.layer.t_compute") - resolved(h200, "kernel.layer.t_compute") ==
        doctest::Approx(resolved(h200, "kernel.attn.t_forward")).epsilon(1e-9));
  // The remat_policy=full rule states the attention core re-run (it is consumed by the output projection's gradient).
  CHECK(v4.assign.at("par.act.attn_recompute_fraction") == 1);
  // MaxText's remat_policy=custom saving the layer input and the attention projections re-runs the rest of
  // the layer: the model derives the share. 700B MoE: projections 56 x 2 x 570.4M = 63.9 GFLOP of 274.9
  // GFLOP forward per token (active experts 2 x 3 x 8192 x 32768, causal attention core 4 s d_attn / 2,
  // untied head), so 1 - 63.9 / 274.9 = 0.768 (within 1%) before round 8; the FFN output projections of the two
  // active experts (56 x 2 x 2 x 268.4M = 60.1 GFLOP) are not re-run either (jax.checkpoint): 1 - 124.0 / 274.9 = 0.549.
  RowScenario v6 = map_row(model(), presets(), published_row("mtx-v6e-moe700b-final-1pod"));
  REQUIRE_MESSAGE(v6.unbuildable.empty(), v6.unbuildable);
  CHECK(!v6.assign.count("par.act.recompute_fraction"));
  CHECK(v6.variants.at("par.act.recompute_fraction") == "save_attention_projections_all_but_ffn_output");
  CHECK(resolved(v6, "par.act.recompute_fraction") == doctest::Approx(0.549).epsilon(0.01));
  CHECK(v6.variants.at("arch.act.values_per_token_dim") == "full");
  // A stated policy no rule knows is read as none, and the report says so.
  RunRow odd = published_row("mtx-v5p-32b-1x128");
  odd.cells["act_recompute"] = "remat_policy=qkv_proj_offloaded";
  RowScenario o = map_row(model(), presets(), odd);
  CHECK(o.assign.at("par.act.recompute_fraction") == 0);
  CHECK(has_assumption(o, "matches no [[recompute]] rule"));
  const std::string head = "[presets]\n[variables]\n[constants]\n[variants]\n[precision]\n[targets]\n[breakdown]\n[unstated]\n"
                           "[[hardware]]\npreset = \"p\"\nall = [\"x\"]\n";
  MappingTable t = parse_mapping_table(head + "[[recompute]]\nall = [\"Remat Policy=Half\"]\nfraction = 0.5\nmemory = \"recompute_selective\"\nwhy = \"w\"\n", "m.toml");
  REQUIRE(match_recompute(t, "remat_policy=half (custom)"));
  CHECK(match_recompute(t, "remat_policy=half")->fraction == 0.5);
  CHECK(!match_recompute(t, "none"));
  // `hardware` restricts a rule to rows on the named parts; `attention` is the attention core's own share.
  MappingTable th = parse_mapping_table(head + "[[recompute]]\nall = [\"sac\"]\nhardware = [\"B200\"]\nfraction = 0.5\nattention = 1\nmemory = \"recompute_selective\"\nwhy = \"w\"\n"
                                               "[[recompute]]\nall = [\"sac\"]\nfraction = 0.5\nattention = 0\nmemory = \"recompute_selective\"\nwhy = \"w\"\n", "m.toml");
  CHECK(*match_recompute(th, "per-op SAC", "B200 (8 GPUs)")->attention == 1);
  CHECK(*match_recompute(th, "per-op SAC", "H200")->attention == 0);
  CHECK(*match_recompute(th, "per-op SAC")->attention == 0);
  CHECK(!match_recompute(t, "remat_policy=half")->attention);
  CHECK_THROWS_WITH_AS(parse_mapping_table(head + "[[recompute]]\nall = [\"x\"]\nfraction = 1\nattention = 1.5\nmemory = \"recompute_full\"\nwhy = \"w\"\n", "m.toml"),
                       doctest::Contains("m.toml:15:13: an attention recompute fraction must lie in [0, 1]"), MappingError);
  CHECK_THROWS_WITH_AS(parse_mapping_table(head + "[[recompute]]\nall = [\"x\"]\nfraction = 2\nmemory = \"recompute_full\"\nwhy = \"w\"\n", "m.toml"),
                       doctest::Contains("m.toml:14:12: a recompute fraction must lie in [0, 1]"), MappingError);
  CHECK_THROWS_WITH_AS(parse_mapping_table(head + "[[recompute]]\nall = [\"x\"]\nfraction = 1\nmemory = \"most\"\nwhy = \"w\"\n", "m.toml"),
                       doctest::Contains("memory must be recompute_none, recompute_selective or recompute_full"), MappingError);
  CHECK_THROWS_WITH_AS(parse_mapping_table(head + "[[recompute]]\nall = [\"x\"]\nfraction = 1\nfraction_variant = \"v\"\nmemory = \"recompute_full\"\nwhy = \"w\"\n", "m.toml"),
                       doctest::Contains("one of 'fraction' or 'fraction_variant'"), MappingError);
}

namespace {

bool layered(const RowScenario& s, const std::string& preset) { return std::find(s.presets.begin(), s.presets.end(), preset) != s.presets.end(); }

}  // namespace

TEST_CASE("overlap follows the framework's schedule: [[schedule]] rules select the window and the traffic no schedule hides") {
  // Narayanan et al. 2021 (Megatron-LM PTD-P): gradients all-reduced after the backward pass, TP exposed.
  RowScenario nar = map_row(model(), presets(), published_row("nar21-t1-1.7b"));
  REQUIRE_MESSAGE(nar.unbuildable.empty(), nar.unbuildable);
  CHECK(layered(nar, "validate/schedule/dp_after_backward"));
  CHECK(layered(nar, "validate/schedule/tp_exposed"));
  CHECK(has_assumption(nar, "dp schedule: Megatron-LM all-reduces the gradients after the backward pass"));
  CHECK(resolved(nar, "col.dp.t_exposed") == doctest::Approx(resolved(nar, "col.dp.t_comm")).epsilon(1e-12));
  CHECK(resolved(nar, "col.tp.overlap_fraction") == 0);
  // Megatron-Core with overlap-grad-reduce/param-gather and tp-comm-overlap stated in the notes.
  RowScenario mlm = map_row(model(), presets(), published_row("mlm24-h100-weak-70b"));
  REQUIRE_MESSAGE(mlm.unbuildable.empty(), mlm.unbuildable);
  CHECK(layered(mlm, "validate/schedule/dp_bucketed_param_gather"));
  CHECK(layered(mlm, "validate/schedule/tp_overlapped"));
  {
    // exposed = max(last bucket, comm - one micro-batch of compute)
    const double comm = resolved(mlm, "col.dp.t_comm"), buckets = resolved(mlm, "col.dp.buckets");
    const double window = resolved(mlm, "kernel.step.t_compute") / resolved(mlm, "par.pp.n_microbatches");
    CHECK(resolved(mlm, "col.dp.t_exposed") == doctest::Approx(std::max(std::min(comm / buckets, comm), comm - window)).epsilon(1e-9));
  }
  // FSDP (Composer): per-layer prefetch; the window is the step's compute, one layer's traffic exposed at least.
  RowScenario mpt = map_row(model(), presets(), published_row("mpt-h100-bf16-70b-s2048-g64"));
  REQUIRE_MESSAGE(mpt.unbuildable.empty(), mpt.unbuildable);
  CHECK(layered(mpt, "validate/schedule/dp_prefetch"));
  CHECK(layered(mpt, "validate/schedule/tp_exposed"));
  {
    const double comm = resolved(mpt, "col.dp.t_comm"), compute = resolved(mpt, "kernel.step.t_compute");
    CHECK(resolved(mpt, "col.dp.t_exposed") == doctest::Approx(std::max(comm / 80, comm - compute)).epsilon(1e-9));
  }
  // Megatron-LM's PTD-P layer keeps [s, b, np, hn]: the QKV split is a view and only the context layer is
  // permuted, 12 hidden-width elementwise passes instead of validate/base's 16 (Narayanan et al. 2021 Sec. 4.2).
  CHECK(layered(nar, "validate/schedule/elementwise_megatron2021"));
  CHECK(has_assumption(nar, "elementwise schedule: Megatron-LM's PTD-P keeps activations as [s, b, np, hn]"));
  CHECK(resolved(nar, "kernel.elementwise.hidden_passes") == 12);
  // DeepSpeed ZeRO-3 as released before Narayanan et al. 2021 (v0.3.12-v0.3.14) synchronises the device before
  // every parameter all-gather and after each sub-module's fetch: no compute hides the traffic, all of it is
  // exposed (Table 2's ZeRO-3 rows; the generic ZeRO-3 rule, per-layer prefetch, comes after this one).
  RowScenario z3 = map_row(model(), presets(), published_row("nar21-t2-zero3-174.6b-768g"));
  REQUIRE_MESSAGE(z3.unbuildable.empty(), z3.unbuildable);
  CHECK(layered(z3, "validate/schedule/dp_serialized"));
  CHECK(!layered(z3, "validate/schedule/dp_prefetch"));
  CHECK(!layered(z3, "validate/schedule/elementwise_megatron2021"));  // DeepSpeed's integration, not PTD-P's layer
  CHECK(resolved(z3, "kernel.elementwise.hidden_passes") == 16);
  CHECK(has_assumption(z3, "dp schedule: DeepSpeed's first ZeRO-3 releases synchronise the device before every parameter all-gather"));
  CHECK(resolved(z3, "col.dp.overlap_window") == 0);
  CHECK(resolved(z3, "col.dp.t_exposed") == doctest::Approx(resolved(z3, "col.dp.t_comm")).epsilon(1e-12));
  CHECK(resolved(z3, "col.dp.t_comm") > 0.3 * resolved(z3, "kernel.step.t_compute"));  // 19.5 s against 31 s: not a rounding matter
  // MaxText on TPU: XLA's collective matmul hides TP traffic behind the layer's GEMMs (the v5p 512B rows).
  RowScenario mtx = map_row(model(), presets(), published_row("mtx-v5p-512b-1x1024"));
  REQUIRE_MESSAGE(mtx.unbuildable.empty(), mtx.unbuildable);
  CHECK(layered(mtx, "validate/schedule/tp_overlapped"));
  CHECK(layered(mtx, "validate/schedule/dp_prefetch"));
  CHECK(resolved(mtx, "col.tp.overlap_fraction") == 1);
  // Rules: first match per axis; a rule without strings is the axis's default; bad rules say where.
  const std::string head = "[presets]\n[variables]\n[constants]\n[variants]\n[precision]\n[targets]\n[breakdown]\n[unstated]\n"
                           "[[hardware]]\npreset = \"p\"\nall = [\"x\"]\n";
  MappingTable t = parse_mapping_table(head + "[[schedule]]\naxis = \"dp\"\nall = [\"FSDP\"]\npreset = \"a\"\nwhy = \"w\"\n"
                                              "[[schedule]]\naxis = \"dp\"\npreset = \"b\"\nwhy = \"w\"\n"
                                              "[[schedule]]\naxis = \"tp\"\npreset = \"c\"\nwhy = \"w\"\n", "m.toml");
  auto presets_of = [&](const std::string& text) {
    std::vector<std::string> out;
    for (const ScheduleRule* r : match_schedules(t, text)) out.push_back(r->preset);
    return out;
  };
  CHECK(presets_of("torch FSDP2") == std::vector<std::string>{"a", "c"});
  CHECK(presets_of("DDP") == std::vector<std::string>{"b", "c"});
  CHECK_THROWS_WITH_AS(parse_mapping_table(head + "[[schedule]]\naxis = \"dp\"\nwhy = \"w\"\n", "m.toml"),
                       doctest::Contains("m.toml:12:1: a [[schedule]] rule needs 'axis', 'preset' and 'why'"), MappingError);
}

TEST_CASE("unbuilt rows: every published row that is not built names exactly what it lacks") {
  auto rows = read_runs(std::vector<std::string>{kRuns, kSupplement});
  std::map<std::string, size_t> by_kind;
  size_t unbuilt = 0;
  for (const auto& r : rows) {
    RowScenario s = map_row(model(), presets(), r);
    if (s.unbuildable.empty()) continue;
    ++unbuilt;
    const std::string kind = s.unbuildable.substr(0, s.unbuildable.find(':'));
    ++by_kind[kind];
    if (kind == "not given") CHECK_MESSAGE(!s.missing_columns.empty(), s.id);
  }
  for (const auto& [k, n] : by_kind) MESSAGE(k << ": " << n);
  // 114 rows: 89 built, 25 not. Each reason is a gap in the row, not in the tool: the missing cells, all of them
  // named. DeepSeek-V2's per-GPU rate needs the GPU count it does not give (it used to read "reports nothing").
  CHECK(rows.size() == 114);
  CHECK(unbuilt == 25);
  CHECK(by_kind["not given"] == 25);
  CHECK(by_kind["the row reports nothing the model predicts (throughput, utilization, step time, wall clock, GPU-hours or energy)"] == 0);
  CHECK(map_row(model(), presets(), published_row("dsv2-h800-pretrain")).unbuildable == "not given: vocab, gpu_count");
  // The model cards lack shape, batch and layout at once, and say so in one reason.
  RowScenario card = map_row(model(), presets(), published_row("card-llama4-scout"));
  CHECK(card.missing_columns == std::vector<std::string>{"layers", "hidden", "heads", "seq_len", "vocab", "gpu_count",
                                                         "global_batch_seqs or global_batch_tokens",
                                                         "a parallel layout (tp, pp, dp, cp or zero_fsdp)"});
  // MaxText's 10T and 900B tier-B rows (MFU only) lack the sequence length and vocabulary the MFU's
  // attention and logit terms need, and the global batch.
  RowScenario tenT = map_row(model(), presets(), published_row("mtx-v6e-moe10t-1pod"));
  CHECK(tenT.unbuildable == "not given: seq_len, vocab, global_batch_seqs or global_batch_tokens, a parallel layout (tp, pp, dp, cp or zero_fsdp)");
  // torchtitan's 405B pipeline-schedule rows: the sequence length of the run's own configuration, from the notes.
  RowScenario pp = map_row(model(), presets(), published_row("tt24-t5-405b-1f1b"));
  REQUIRE_MESSAGE(pp.unbuildable.empty(), pp.unbuildable);
  CHECK(pp.assign.at("arch.seq_len") == 8192);
  CHECK(has_assumption(pp, "seq_len not given: 8192 from the row's notes"));
}

TEST_CASE("rows that leave out what their paper states elsewhere take it from the paper's text") {
  // Narayanan et al. 2021, Table 2: Sec. 5.2 names its models (GPT-3, given in Sec. 5.3.2 as 96 layers, 96 heads,
  // hidden 12288; and Table 1's 530B model); the PTD-P rows give only t x p, split as the paper's configurations do.
  RowScenario gpt3 = map_row(model(), presets(), published_row("nar21-t2-ptdp-174.6b-384g"));
  REQUIRE_MESSAGE(gpt3.unbuildable.empty(), gpt3.unbuildable);
  CHECK(gpt3.assign.at("arch.n_layers") == 96);
  CHECK(gpt3.assign.at("arch.d_model") == 12288);
  CHECK(gpt3.assign.at("arch.n_heads") == 96);
  CHECK(gpt3.assign.at("par.tp") == 8);
  CHECK(gpt3.assign.at("par.pp") == 12);
  CHECK(gpt3.assign.at("par.act.recompute_fraction") == 1);
  CHECK(has_assumption(gpt3, "layers not given: 96 from Narayanan et al. 2021"));
  CHECK(has_assumption(gpt3, "pp not given: 12 from Narayanan et al. 2021"));
  // Eq. 2 of the paper with this shape and V = 51200, s = 2048 gives the stated 174.6B.
  CHECK(resolved(gpt3, "arch.params_total_dense") == doctest::Approx(174.6e9).epsilon(0.002));
  RowScenario big = map_row(model(), presets(), published_row("nar21-t2-ptdp-529.6b-560g"));
  REQUIRE_MESSAGE(big.unbuildable.empty(), big.unbuildable);
  CHECK(big.assign.at("arch.n_layers") == 105);
  CHECK(big.assign.at("arch.d_model") == 20480);
  CHECK(big.assign.at("par.tp") == 8);
  CHECK(big.assign.at("par.pp") == 35);
  // The ZeRO-3 rows keep their stated layout (no model parallelism) and take only the shape.
  RowScenario z3 = map_row(model(), presets(), published_row("nar21-t2-zero3-529.6b-640g"));
  REQUIRE_MESSAGE(z3.unbuildable.empty(), z3.unbuildable);
  CHECK(z3.assign.at("arch.n_heads") == 128);
  CHECK(z3.assign.at("par.tp") == 1);
  CHECK(z3.assign.at("par.pp") == 1);
  // Shoeybi et al. 2019: every GPT-2 run uses 1024-token sequences and checkpoints every layer; the 8.3B row
  // reports the job's aggregate rate (15.1 PFLOP/s on 512 GPUs), compared as the per-GPU rate times 512.
  RowScenario agg = map_row(model(), presets(), published_row("meg19-8.3b-512gpu"));
  REQUIRE_MESSAGE(agg.unbuildable.empty(), agg.unbuildable);
  CHECK(agg.assign.at("arch.seq_len") == 1024);
  CHECK(has_assumption(agg, "seq_len not given: 1024 from Shoeybi et al. 2019"));
  REQUIRE(agg.primary);
  const Observation& o = agg.observations[*agg.primary];
  CHECK(o.metric == "aggregate_pflops");
  CHECK(o.reported == 15.1);
  CHECK(o.factor == doctest::Approx(512e-15).epsilon(1e-12));
  CHECK(o.target == "training.util.model_flops_per_gpu");
}

TEST_CASE("torchtitan's own pipeline defaults fill what its 405B benchmark rows leave out") {
  // Table 5, Interleaved 1F1B: torchtitan 9dec370 splits a looped schedule into 2 stages per rank and the
  // local batch (32 sequences per data-parallel rank) into as many micro-batches as pipeline ranks (8).
  RowScenario i = map_row(model(), presets(), published_row("tt24-t5-405b-i1f1b"));
  REQUIRE_MESSAGE(i.unbuildable.empty(), i.unbuildable);
  CHECK(i.assign.at("par.pp.virtual_stages") == 2);
  CHECK(i.variants.at("par.pp.bubble_fraction") == "interleaved");
  CHECK(i.assign.at("par.batch.grad_accum_steps") == 8);
  CHECK(i.assign.at("par.batch.micro_per_gpu") == 4);
  CHECK(has_assumption(i, "vp not given: 2 from torchtitan at 9dec370"));
  CHECK(has_assumption(i, "grad_accum not given: 8 (the row's pp) from torchtitan at 9dec370"));
  CHECK(i.unstated.empty());  // nothing is left to the search
  // Its bubble: (pp - 1) / vp over (pp - 1) / vp + m = 3.5 / 11.5.
  CHECK(resolved(i, "par.pp.bubble_fraction") == doctest::Approx(3.5 / 11.5).epsilon(1e-9));
  // Table 5, 1F1B: one chunk per rank, the same 8 micro-batches of 4 sequences; bubble 7 / 15.
  RowScenario p = map_row(model(), presets(), published_row("tt24-t5-405b-1f1b"));
  REQUIRE_MESSAGE(p.unbuildable.empty(), p.unbuildable);
  CHECK(p.assign.count("par.pp.virtual_stages") == 0);
  CHECK(has_assumption(p, "vp not given: 1 from the row's notes name the plain 1F1B schedule"));
  CHECK(p.assign.at("par.batch.micro_per_gpu") == 4);
  CHECK(resolved(p, "par.pp.bubble_fraction") == doctest::Approx(7.0 / 15).epsilon(1e-9));
  // Table 6 (1F1B, local batch 8): 8 micro-batches of one sequence.
  RowScenario cp = map_row(model(), presets(), published_row("tt24-t6-405b-cp4-s128k"));
  REQUIRE_MESSAGE(cp.unbuildable.empty(), cp.unbuildable);
  CHECK(cp.assign.at("par.batch.grad_accum_steps") == 8);
  CHECK(cp.assign.at("par.batch.micro_per_gpu") == 1);
  CHECK(cp.assign.count("par.pp.virtual_stages") == 0);
  // Rows of the same report without a pipeline keep their own cells: no pipeline default applies.
  RowScenario dense = map_row(model(), presets(), published_row("tt24-t2-8b-cp1-s32k"));
  CHECK(!has_assumption(dense, "torchtitan at 9dec370"));
}

TEST_CASE("a setting the row's notes imply: overlap-param-gather needs Megatron's distributed optimizer") {
  RowScenario s = map_row(model(), presets(), published_row("mlm24-h100-weak-70b"));
  REQUIRE_MESSAGE(s.unbuildable.empty(), s.unbuildable);
  CHECK(s.assign.at("par.zero.stage") == 1);
  CHECK(has_assumption(s, "zero_fsdp not given: distributed optimizer from the row's notes"));
  // A row whose notes do not name it keeps its own (empty) sharding.
  RowScenario n = map_row(model(), presets(), published_row("nar21-t1-1.7b"));
  CHECK(!has_assumption(n, "distributed optimizer from the row's notes"));
}

TEST_CASE("FP8 recipes keep attention at the 16-bit tensor rate; MoE rows divide the routed experts over EP") {
  // torchtitan's Float8 rows cast only the linear layers: attention runs at the measured BF16 rate,
  // 794.5 / 1402.6 = 0.5664 of the FP8 GEMM roof on H100 (Bekman's MAMF table).
  RowScenario fp8 = map_row(model(), presets(), published_row("tt24-t2-8b-cp1-s32k"));
  REQUIRE_MESSAGE(fp8.unbuildable.empty(), fp8.unbuildable);
  CHECK(resolved(fp8, "kernel.attn.matmul_ceiling") / resolved(fp8, "kernel.compute_ceiling") == doctest::Approx(794.5 / 1402.6).epsilon(1e-3));
  RowScenario bf16 = map_row(model(), presets(), published_row("mpt-h100-bf16-7b-s2048-g8"));
  CHECK(resolved(bf16, "kernel.attn.matmul_ceiling") == doctest::Approx(resolved(bf16, "kernel.compute_ceiling")).epsilon(1e-12));
  // MaxText's 700B MoE on v6e: 56 layers x 16 experts x 3 x 8192 x 32768 = 721.4B expert weights of 754B;
  // with EP 16 a chip keeps 1/16 of them: resident share (754 - 721.4 x 15/16) / 754 = 0.103 (within 2%).
  RowScenario moe = map_row(model(), presets(), published_row("mtx-v6e-moe700b-final-1pod"));
  REQUIRE_MESSAGE(moe.unbuildable.empty(), moe.unbuildable);
  CHECK(resolved(moe, "par.resident_share") == doctest::Approx(0.103).epsilon(0.02));
}

TEST_CASE("MoE rows on B200 run the routed experts at torchao's measured grouped-GEMM rate, in the row's precision") {
  // torch._grouped_mm on B200, Llama 4 expert shapes (M 128,000, N 8192, K 5120, 4 groups), forward plus
  // backward in 38,879.3 us (BF16) and 24,508.5 us (torchao's MXFP8 recipe): 6 M N K over the time, over the
  // measured dense matmul rate of the same precision (1745 and 3432.5 TFLOP/s, Bekman's MAMF table).
  const double flop = 6.0 * 128000 * 8192 * 5120;
  RowScenario bf16 = map_row(model(), presets(), published_row("tao-b200-l4x2layer-bf16"));
  REQUIRE_MESSAGE(bf16.unbuildable.empty(), bf16.unbuildable);
  CHECK(std::find(bf16.presets.begin(), bf16.presets.end(), "validate/grouped_gemm/b200") != bf16.presets.end());
  CHECK(resolved(bf16, "moe.grouped_gemm_efficiency") == doctest::Approx(flop / 38879.3e-6 / 1745e12).epsilon(2e-3));
  CHECK(has_assumption(bf16, "routed experts' grouped GEMMs at the part's measured grouped-kernel rate (validate/grouped_gemm/b200)"));
  RowScenario mx = map_row(model(), presets(), published_row("tao-b200-l4x2layer-mxfp8"));
  REQUIRE_MESSAGE(mx.unbuildable.empty(), mx.unbuildable);
  CHECK(std::find(mx.presets.begin(), mx.presets.end(), "validate/grouped_gemm/b200_mxfp8") != mx.presets.end());
  CHECK(resolved(mx, "moe.grouped_gemm_efficiency") == doctest::Approx(flop / 24508.5e-6 / 3432.5e12).epsilon(2e-3));
  // The routed experts' compute roof is the dense ceiling thinned by that share (and the tile fill).
  CHECK(resolved(bf16, "moe.routed.attainable") <=
        resolved(bf16, "kernel.compute_ceiling") * resolved(bf16, "moe.grouped_gemm_efficiency") * (1 + 1e-12));
  // A part without a grouped-GEMM measurement keeps grouped kernels at the dense rate (validate/moe), and a
  // dense row on B200 layers nothing of it.
  RowScenario h100 = map_row(model(), presets(), published_row("mcore-moe-readme-mixtral8x7b-v0.9"));
  REQUIRE_MESSAGE(h100.unbuildable.empty(), h100.unbuildable);
  CHECK(resolved(h100, "moe.grouped_gemm_efficiency") == 1);
  RowScenario dense = map_row(model(), presets(), published_row("tao-b200-8b-bf16"));
  CHECK(std::find(dense.presets.begin(), dense.presets.end(), "validate/grouped_gemm/b200") == dense.presets.end());
  // The `moe` key of a [[hardware]] rule is read from the mapping table.
  const HardwareRule* b200 = match_hardware_rule(mapping_table(presets().dir()), "B200 (single node, 4 GPUs)");
  REQUIRE(b200 != nullptr);
  CHECK(b200->moe == "validate/grouped_gemm/b200");
}

TEST_CASE("attention runs at the part's measured fused-kernel rate, not at a fitted share") {
  // H100 (torchtitan's Float8 rows at 500 W): FlashAttention-2 measured by Shah et al. 2024 at 335 TFLOP/s
  // forward (causal) and 322 TFLOP/s backward against the 794.5 TFLOP/s BF16 MAMF roof; the FP8 preset's
  // matmul rate times its BF16-over-FP8 ratio recovers that BF16 roof, so the share is 335 / 794.5.
  RowScenario h = map_row(model(), presets(), published_row("tt24-t2-8b-cp1-s32k"));
  REQUIRE_MESSAGE(h.unbuildable.empty(), h.unbuildable);
  CHECK(resolved(h, "kernel.attn.compute_efficiency") == doctest::Approx(335.0 / 794.5).epsilon(2e-3));
  CHECK(resolved(h, "kernel.attn.bwd_rate_ratio") == doctest::Approx(322.0 / 335.0).epsilon(1e-9));
  // The attention roof is then the framework's GEMM share of the measured attention rate at the 500 W clock.
  const double eff = resolved(h, "kernel.gemm.efficiency");
  CHECK(resolved(h, "kernel.attn.compute_ceiling") == doctest::Approx(eff * 335e12 * 0.85227).epsilon(2e-3));
  // The backward does 2.5 forward products at 322 / 335 of the forward's rate.
  CHECK(resolved(h, "kernel.attn.t_backward") ==
        doctest::Approx(2.5 * resolved(h, "kernel.attn.t_forward") * 335.0 / 322.0).epsilon(1e-9));
  // B200: cuDNN at 1613 / 1.3 = 1241 TFLOP/s over the 1745 TFLOP/s MAMF roof; A100: FlashAttention-2 at 73% of
  // 312 TFLOP/s over 271.2 TFLOP/s, which MosaicML's llm-foundry rows ran a generation older: FlashAttention-1
  // (or its Triton port) at 40% of peak, so 40/73 of that rate with the same backward-over-forward ratio.
  RowScenario b = map_row(model(), presets(), published_row("tao-b200-8b-bf16"));
  REQUIRE_MESSAGE(b.unbuildable.empty(), b.unbuildable);
  CHECK(resolved(b, "kernel.attn.compute_efficiency") == doctest::Approx(1241.0 / 1745.0).epsilon(1e-6));
  CHECK(resolved(b, "kernel.attn.implementation_rate_ratio") == doctest::Approx(1));
  RowScenario a = map_row(model(), presets(), published_row("mpt-a100-80-bf16-7b-s2048-g8"));
  REQUIRE_MESSAGE(a.unbuildable.empty(), a.unbuildable);
  CHECK(std::find(a.presets.begin(), a.presets.end(), "validate/schedule/attention_flash1") != a.presets.end());
  CHECK(resolved(a, "kernel.attn.compute_efficiency") == doctest::Approx(0.548 * 228.0 / 271.2).epsilon(1e-6));
  CHECK(resolved(a, "kernel.attn.bwd_rate_ratio") == doctest::Approx(197.0 / 228.0).epsilon(1e-9));
  // The same generation on H100: 0.548 of FlashAttention-2's 335 TFLOP/s over the 794.5 TFLOP/s roof.
  RowScenario mh = map_row(model(), presets(), published_row("mpt-h100-bf16-7b-s2048-g8"));
  REQUIRE_MESSAGE(mh.unbuildable.empty(), mh.unbuildable);
  CHECK(resolved(mh, "kernel.attn.compute_efficiency") == doctest::Approx(0.548 * 335.0 / 794.5).epsilon(2e-3));
  // No TPU attention benchmark is published: the TPU presets state an assumption (half the MXU rate).
  RowScenario t = map_row(model(), presets(), published_row("mtx-v5p-32b-1x128"));
  REQUIRE_MESSAGE(t.unbuildable.empty(), t.unbuildable);
  CHECK(resolved(t, "kernel.attn.compute_efficiency") == doctest::Approx(0.5));
  CHECK(resolved(t, "kernel.attn.bwd_rate_ratio") == doctest::Approx(1));
  // A materialising-attention row keeps its backward at the forward's rate (the measured ratio is a fused kernel's).
  RowScenario m = map_row(model(), presets(), published_row("nar21-t1-1.7b"));
  REQUIRE_MESSAGE(m.unbuildable.empty(), m.unbuildable);
  CHECK(resolved(m, "kernel.attn.bwd_rate_ratio") == doctest::Approx(1));
  // The attention share is no longer a fitted parameter.
  for (const auto& f : mapping_table(presets().dir()).fit) CHECK(f.name != "kernel.attn.compute_efficiency");
}
