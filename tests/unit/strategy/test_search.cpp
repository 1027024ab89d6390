// The strategy search on the real model: a small space whose best layout and rejection counts can be
// worked out by hand, the cone's values against the exact resolver, pins, and bad input.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/strategy/search.h"
#include "runtime/uq/plan.h"
#include "runtime/strategy/space.h"
#include "tests/unit/support/shipped_model.h"

namespace {

const gs::Registry& model() { return gs::testing::shipped_model(); }

gs::ScenarioPoint scenario(const std::string& preset) { return gs::testing::preset_point(preset); }

// The default scenario is Llama-3-70B-shaped (80 layers, 64 heads) on 2,048 GPUs with a 2,048-sequence
// batch. tp in {8, 128} x pp in {3, 4} x recompute in {none, full}: 8 candidates. pp = 3 leaves
// 2048/(3 tp) GPUs, not a whole number (4 rejected); tp = 128 does not divide 64 heads (2 rejected);
// tp 8, pp 4, dp 64 remains with two recompute modes.
const char* kSmallSpace = R"(
schema = "gpu-stack.strategy-knobs.v1"
[problem]
n_gpus = { var = "par.n_gpus" }
global_batch = { var = "par.batch.global" }
n_heads = { var = "arch.n_heads" }
[[knob]]
name = "tp"
var = "par.tp"
generator = "list"
list = [8, 128]
[[knob]]
name = "pp"
var = "par.pp"
generator = "list"
list = [3, 4]
[[knob]]
name = "recompute"
var = "par.act.recompute_mode"
generator = "list"
list = [0, 2]
labels = ["none", "full"]
[[derived]]
name = "dp"
var = "par.dp"
numerator = ["n_gpus"]
denominator = ["tp", "pp"]
rule = "gpus_fill_layout"
[[derived]]
name = "ga"
var = "par.batch.grad_accum_steps"
numerator = ["global_batch"]
denominator = ["dp"]
rule = "batch_by_dp"
[[rule]]
name = "heads_by_tp"
kind = "divides"
divisor = ["tp"]
dividend = ["n_heads"]
[variants]
"par.act.recompute_fraction" = "mode"
"arch.act.values_per_token_dim" = "mode"
"arch.act.values_per_score" = "mode"
[constraints]
names = ["training.fits_in_hbm"]
[objective.tokens_per_sec]
var = "training.tokens_per_sec"
sense = "max"
[[report]]
name = "total"
var = "training.mem.hbm_required_per_gpu"
group = "memory"
)";

uint64_t rejected(const gs::strategy::StrategyResult& r, const std::string& name) {
  for (const auto& x : r.rejections)
    if (x.name == name) return x.count;
  FAIL("no rejection named " << name);
  return 0;
}

bool close(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace

TEST_CASE("a small space: the obvious best layout, exact rejection counts, values equal to the resolver's") {
  const auto& reg = model();
  auto space = gs::strategy::parse_strategy_space(reg, kSmallSpace, "small.toml");
  auto s = scenario("default");
  auto r = gs::strategy::search_strategies(reg, s, space, {});
  CHECK(r.enumerated == 8);
  CHECK(rejected(r, "gpus_fill_layout") == 4);
  CHECK(rejected(r, "heads_by_tp") == 2);
  CHECK(rejected(r, "batch_by_dp") == 0);
  CHECK(rejected(r, "training.fits_in_hbm") == 0);
  CHECK(r.evaluated == 2);
  CHECK(r.feasible == 2);
  CHECK(r.evaluator == "interpreter");  // two candidates: the Plan layer interprets, no LLVM
  REQUIRE(r.ranked.size() == 2);
  // Same layout, a third more forward work: no recomputation is faster.
  const auto& best = r.ranked[0];
  CHECK(best.knobs == std::vector<double>{8, 4, 0, 64, 32});
  CHECK(knob_value_text(space, 2, best.knobs[2]) == "none");
  CHECK(r.ranked[1].knobs[2] == 2);
  CHECK(r.ranked[1].objective < best.objective);
  // The default scenario is exactly this layout without recomputation: the cone agrees with GiNaC.
  gs::Resolver resolver(reg, s.assignments, s.variants);
  auto tps = resolver.resolve(*reg.find_var("training.tokens_per_sec")).number;
  auto mem = resolver.resolve(*reg.find_var("training.mem.hbm_required_per_gpu")).number;
  REQUIRE(tps);
  REQUIRE(mem);
  CHECK(close(best.objective, *tps, 1e-9));
  CHECK(close(best.report[0], *mem, 1e-9));
  // Full recomputation keeps 2 instead of 34 values per token and channel: far less activation memory.
  CHECK(r.ranked[1].report[0] < best.report[0]);
  // The same search through the JIT (the evaluator above the crossover) ranks the same values.
  const gs::EvaluatorPolicy saved = gs::evaluator_policy();
  gs::set_evaluator_policy(gs::EvaluatorPolicy::Jit);
  auto j = gs::strategy::search_strategies(reg, s, space, {});
  gs::set_evaluator_policy(saved);
  CHECK(j.evaluator == "jit");
  REQUIRE(j.ranked.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(j.ranked[i].knobs == r.ranked[i].knobs);
    CHECK(close(j.ranked[i].objective, r.ranked[i].objective, 1e-12));
    CHECK(close(j.ranked[i].report[0], r.ranked[i].report[0], 1e-12));
  }
}

TEST_CASE("memory that fits nothing rejects every layout under fits_in_hbm; a pin narrows the space") {
  const auto& reg = model();
  auto space = gs::strategy::parse_strategy_space(reg, kSmallSpace, "small.toml");
  auto s = scenario("default");
  gs::strategy::StrategyRequest req;
  req.fixes = {"recompute=none"};
  s.assignments[*reg.find_var("gpu.hbm.capacity")] = 16e9 * 8;  // 16 GB in bits (base unit): below the activations alone
  auto r = gs::strategy::search_strategies(reg, s, space, req);
  CHECK(r.enumerated == 4);
  CHECK(rejected(r, "gpus_fill_layout") == 2);
  CHECK(rejected(r, "heads_by_tp") == 1);
  CHECK(rejected(r, "training.fits_in_hbm") == 1);
  CHECK(r.feasible == 0);
  CHECK(r.ranked.empty());
}

TEST_CASE("a pinned derived knob filters; pins by variable name work") {
  const auto& reg = model();
  auto space = gs::strategy::parse_strategy_space(reg, kSmallSpace, "small.toml");
  gs::strategy::StrategyRequest req;
  req.fixes = {"par.tp=8", "dp=32"};
  auto r = gs::strategy::search_strategies(reg, scenario("default"), space, req);
  CHECK(r.enumerated == 4);  // tp pinned: 1 x 2 x 2
  CHECK(rejected(r, "gpus_fill_layout") == 2);
  CHECK(rejected(r, "fixed") == 2);  // tp 8, pp 4 gives dp 64, not 32
  CHECK(r.ranked.empty());
}

TEST_CASE("bad input: unknown knob, bad value, unknown objective, unknown names in the space file") {
  const auto& reg = model();
  auto space = gs::strategy::parse_strategy_space(reg, kSmallSpace, "small.toml");
  auto s = scenario("default");
  gs::strategy::StrategyRequest req;
  req.fixes = {"tpp=8"};
  CHECK_THROWS_WITH_AS(gs::strategy::search_strategies(reg, s, space, req), doctest::Contains("'tpp' is not a knob of the search"), gs::PresetError);
  req.fixes = {"recompute=sometimes"};
  CHECK_THROWS_WITH_AS(gs::strategy::search_strategies(reg, s, space, req), doctest::Contains("none, full"), gs::PresetError);
  req.fixes = {"tp=2.5"};
  CHECK_THROWS_AS(gs::strategy::search_strategies(reg, s, space, req), gs::PresetError);
  req.fixes = {};
  req.objective = "speed";
  CHECK_THROWS_WITH_AS(gs::strategy::search_strategies(reg, s, space, req), doctest::Contains("unknown objective"), gs::PresetError);
  std::string bad = kSmallSpace;
  bad.replace(bad.find("\"par.tp\""), 8, "\"par.tpp\"");
  CHECK_THROWS_WITH_AS(gs::strategy::parse_strategy_space(reg, bad, "bad.toml"), doctest::Contains("bad.toml:"), gs::PresetError);
}

TEST_CASE("the shipped space: Llama 3 405B on 16,384 H100s ranks memory-feasible layouts") {
  const auto& reg = model();
  auto space = gs::strategy::load_strategy_space(reg, std::string(GSTACK_SOURCE_DIR) + "/presets/strategy/knobs.toml");
  auto r = gs::strategy::search_strategies(reg, scenario("h100_16k"), space, {});
  CHECK(r.problem.at("n_gpus") == 16384);
  CHECK(r.problem.at("global_batch") == 2048);
  REQUIRE(r.ranked.size() == 10);
  CHECK(r.feasible > 1000);
  CHECK(rejected(r, "training.fits_in_hbm") > 0);
  size_t total = 0, capacity = 0;
  for (size_t k = 0; k < space.report.size(); ++k) {
    if (space.report[k].name == "total") total = k;
    if (space.report[k].name == "capacity") capacity = k;
  }
  for (const auto& c : r.ranked) {
    CHECK(c.report[total] <= c.report[capacity]);
    CHECK(c.knobs[0] * c.knobs[1] * c.knobs[3] * c.knobs[8] == 16384);  // tp pp cp dp
  }
}
