// `plan --serving` on the real model: presets/strategy/serving-knobs.toml over the Llama-3-8B serving
// preset. With every format pinned to BF16 and one GPU, cost per output token falls as the batch grows,
// so the best batch is the KV capacity worked out by hand; a TPOT limit moves it to the largest batch
// whose step is fast enough; the limits are checked against the exact resolver.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/strategy/search.h"
#include "runtime/strategy/space.h"
#include "tests/unit/support/shipped_model.h"

namespace {

const gs::Registry& model() { return gs::testing::shipped_model(); }

gs::ScenarioPoint scenario(const std::string& preset) { return gs::testing::preset_point(preset); }

gs::strategy::StrategySpace serving_space() {
  return gs::strategy::load_strategy_space(model(), gs::strategy::serving_space_path(std::string(GSTACK_SOURCE_DIR) + "/presets"));
}

double resolve(const gs::ScenarioPoint& s, const std::string& name, const std::map<std::string, double>& with = {}) {
  const auto& reg = model();
  auto assignments = s.assignments;
  for (const auto& [n, v] : with) assignments[*reg.find_var(n)] = v;
  gs::Resolver resolver(reg, assignments, s.variants);
  auto v = resolver.resolve(*reg.find_var(name)).number;
  REQUIRE(v);
  return *v;
}

size_t knob(const gs::strategy::StrategyResult& r, const std::string& name) {
  for (size_t i = 0; i < r.knob_names.size(); ++i)
    if (r.knob_names[i] == name) return i;
  FAIL("no knob " << name);
  return 0;
}

const std::vector<std::string> kBf16OneGpu = {"tp=1", "ep=1", "weights=bf16", "kv=bf16", "math=bf16"};

}  // namespace

TEST_CASE("serving plan, Llama-3-8B on one H100 in BF16: the best batch is the KV capacity worked out by hand") {
  const auto& reg = model();
  const auto space = serving_space();
  const auto s = scenario("serving/llama3_8b_1xh100");
  gs::strategy::StrategyRequest req;
  req.fixes = kBf16OneGpu;
  req.top = 3;
  const auto r = gs::strategy::search_strategies(reg, s, space, req);
  CHECK(r.objective == "cost_per_output_token");
  CHECK(r.enumerated == 1024);
  REQUIRE(!r.ranked.empty());
  // By hand (bytes): the engine claims 0.9 of HBM, less 2 B per parameter and a 4 GiB reserve; a request
  // holds 1,024 + 512 = 1,536 tokens (96 whole pages of 16) of 2 (K, V) x 8 KV heads x 128 x 2 B x 32
  // layers = 131,072 B each.
  const double hbm_bytes = resolve(s, "gpu.hbm.capacity") / 8, params = resolve(s, "par.n_params");
  const double capacity = 0.9 * hbm_bytes - 2 * params - 4.0 * 1024 * 1024 * 1024;
  const double per_seq = 1536.0 * 131072.0;
  const double max_batch = std::floor(capacity / per_seq);
  CHECK(max_batch > 250);  // about 282 on an 80 GiB H100
  CHECK(max_batch < 300);
  CHECK(r.ranked[0].knobs[knob(r, "batch")] == max_batch);
  CHECK(r.feasible == uint64_t(max_batch));  // every batch up to it fits, none beyond
  // The cone's cost equals the resolver's at that batch.
  const double cost = resolve(s, "serve.cost.per_output_token", {{"serve.batch", max_batch}});
  CHECK(r.ranked[0].objective == doctest::Approx(cost).epsilon(1e-9));
}

TEST_CASE("serving plan: a TPOT limit picks the largest batch whose step meets it, and limits reach the result") {
  const auto& reg = model();
  const auto space = serving_space();
  const auto s = scenario("serving/llama3_8b_1xh100");
  gs::strategy::StrategyRequest req;
  req.fixes = kBf16OneGpu;
  req.limits = {{"tpot_max", "20 ms"}};
  const auto r = gs::strategy::search_strategies(reg, s, space, req);
  REQUIRE(!r.ranked.empty());
  CHECK(r.limits.at("tpot_max") == doctest::Approx(0.020));
  const double b = r.ranked[0].knobs[knob(r, "batch")];
  CHECK(resolve(s, "serve.tpot", {{"serve.batch", b}}) <= 0.020);
  CHECK(resolve(s, "serve.tpot", {{"serve.batch", b + 1}}) > 0.020);
  uint64_t tpot_rejected = 0;
  for (const auto& x : r.rejections)
    if (x.name == "serving.meets_tpot_target") tpot_rejected = x.count;
  CHECK(tpot_rejected > 0);
  CHECK(r.feasible == uint64_t(b));
}

TEST_CASE("serving plan: quantization is chosen when it is cheaper, and bad limits are errors") {
  const auto& reg = model();
  const auto space = serving_space();
  const auto s = scenario("serving/llama3_70b_8xh100_tp8");
  gs::strategy::StrategyRequest req;
  req.limits = {{"ttft_max", "200 ms"}, {"tpot_max", "50 ms"}};
  const auto r = gs::strategy::search_strategies(reg, s, space, req);
  REQUIRE(!r.ranked.empty());
  const auto& best = r.ranked[0];
  CHECK(best.report[0] <= 0.200 * (1 + 1e-9));  // ttft column
  CHECK(best.report[1] <= 0.050 * (1 + 1e-9));  // tpot column
  // A 70B model in BF16 streams 140 GB per step; narrower weights cut the bytes, so the winner quantizes.
  CHECK(knob_value_text(space, knob(r, "weights"), best.knobs[knob(r, "weights")]) != "bf16");
  gs::strategy::StrategyRequest bad;
  bad.limits = {{"ttft_mx", "200 ms"}};
  CHECK_THROWS_AS(gs::strategy::search_strategies(reg, s, space, bad), gs::PresetError);
  bad.limits = {{"ttft_max", "200 GB"}};
  CHECK_THROWS_AS(gs::strategy::search_strategies(reg, s, space, bad), gs::PresetError);
  bad.limits = {{"ttft_max", "-1 ms"}};
  CHECK_THROWS_AS(gs::strategy::search_strategies(reg, s, space, bad), gs::PresetError);
}
