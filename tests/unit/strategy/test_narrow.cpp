// The space validate searches when only some knobs are free (strategy::narrow_space): free knobs keep
// the given values and their variants, held knobs become problem quantities only where a rule or a
// derived knob reads them, and rules about held knobs alone are dropped.
#include <doctest/doctest.h>

#include <algorithm>

#include "runtime/presets.h"
#include "runtime/strategy/search.h"
#include "runtime/strategy/space.h"
#include "tests/unit/support/shipped_model.h"

namespace {

const gs::Registry& model() { return gs::testing::shipped_model(); }

const gs::strategy::StrategySpace& shipped_space() {
  static gs::strategy::StrategySpace s =
      gs::strategy::load_strategy_space(model(), std::string(GSTACK_SOURCE_DIR) + "/presets/strategy/knobs.toml");
  return s;
}

bool has_problem(const gs::strategy::StrategySpace& s, const std::string& name) {
  return std::any_of(s.problem.begin(), s.problem.end(), [&](const auto& q) { return q.name == name; });
}

bool has_rule(const gs::strategy::StrategySpace& s, const std::string& name) {
  return std::any_of(s.rules.begin(), s.rules.end(), [&](const auto& r) { return r.name == name; });
}

}  // namespace

TEST_CASE("narrow_space: micro-batch and recomputation free, everything else held") {
  const auto& full = shipped_space();
  auto s = gs::strategy::narrow_space(full, {{"mb", {1, 2, 4, 8}}, {"recompute", {0, 2}}});
  REQUIRE(s.knobs.size() == 2);
  CHECK(s.knobs[0].name == "mb");
  CHECK(s.knobs[0].list == std::vector<double>{1, 2, 4, 8});
  CHECK(s.knobs[1].name == "recompute");
  CHECK(s.knobs[1].labels == std::vector<std::string>{"none", "full"});  // the names of the kept values
  CHECK(s.knobs[1].variants.size() == 3);                                  // recomputation keeps its variants
  // tp, pp and cp feed the derived dp: read from the scenario. vp feeds a kept rule (micro-batches by pp
  // when interleaved). ZeRO and ep are read by no kept rule: not needed.
  for (const char* held : {"tp", "pp", "cp", "vp"}) CHECK(has_problem(s, held));
  for (const char* unused : {"zero", "ep"}) CHECK_FALSE(has_problem(s, unused));
  CHECK(has_rule(s, "microbatches_by_pp_interleaved"));
  CHECK_FALSE(has_rule(s, "heads_by_tp"));       // about the stated tp alone: a fact, not a choice
  CHECK_FALSE(has_rule(s, "layers_by_pp"));
  CHECK_FALSE(has_rule(s, "zero_needs_shards"));
  CHECK(s.derived.size() == full.derived.size());
  CHECK_THROWS_WITH_AS(gs::strategy::narrow_space(full, {{"micro", {1}}}), doctest::Contains("'micro' is not a knob"), gs::PresetError);
}

TEST_CASE("narrow_space: a search over micro-batches of the default layout keeps its pins") {
  const auto& reg = model();
  auto space = gs::strategy::narrow_space(shipped_space(), {{"mb", {1, 2, 4, 8}}});
  gs::strategy::StrategyRequest req;
  req.threads = 1;
  req.top = 4;
  auto r = gs::strategy::search_strategies(reg, gs::testing::preset_point("default"), space, req);
  CHECK(r.enumerated == 4);
  // The default runs 32 micro-batches of 1 sequence per replica over 4 interleaved stages: every candidate
  // keeps the micro-batch count (32, 16, 8, 4) a multiple of pp, so none breaks a rule; 4 and 8
  // sequences per micro-batch do not fit in 80 GiB (the same answer `plan --fix` gives with every other
  // knob pinned to the default's values).
  CHECK(r.evaluated == 4);
  CHECK(r.feasible == 2);
  uint64_t memory = 0;
  for (const auto& x : r.rejections)
    if (x.name == "training.fits_in_hbm") memory = x.count;
  CHECK(memory == 2);
  REQUIRE(r.ranked.size() == 2);
  CHECK(r.ranked[0].knobs[0] == 2);  // two sequences per micro-batch run a little faster than one
  CHECK(r.ranked[1].knobs[0] == 1);
  CHECK(r.problem.at("tp") == 8);
  CHECK(r.problem.at("pp") == 4);
  for (const auto& c : r.ranked) CHECK(c.knobs[0] * c.knobs[2] == 32);  // mb x ga: the sequences per replica stay
}
