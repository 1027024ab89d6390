// Whether a layout fits in HBM (runtime/uq/memory_fit): the check read from presets/memory_fit.toml, its
// verdict and breakdown on the default scenario with and without an oversized micro-batch, the sweep's
// fits column, and bad check files.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/uq/memory_fit.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/uq/commands.h"
#include "tests/unit/support/shipped_model.h"

namespace {

const gs::Registry& model() { return gs::testing::shipped_model(); }

const gs::MemoryFitCheck& shipped_check() {
  static gs::MemoryFitCheck c = *gs::load_memory_fit_check(model(), std::string(GSTACK_SOURCE_DIR) + "/presets");
  return c;
}

gs::ScenarioPoint with_micro_batch(double mb, double accumulation) {
  gs::ScenarioPoint s = gs::testing::preset_point("default");
  s.assignments[*model().find_var("par.batch.micro_per_gpu")] = mb;
  s.assignments[*model().find_var("par.batch.grad_accum_steps")] = accumulation;
  return s;
}

}  // namespace

TEST_CASE("memory fit: the shipped check names the model's fits relation and its two sides") {
  const auto& c = shipped_check();
  CHECK(model().relation(c.constraint).name == "training.fits_in_hbm");
  CHECK(model().var(c.required).name == "training.mem.hbm_required_per_gpu");
  CHECK(model().var(c.capacity).name == "gpu.hbm.capacity");
  CHECK(c.column == "fits");
  CHECK(c.parts.size() == 6);
}

TEST_CASE("memory fit: the default layout fits and its parts add up to the total; 16 sequences per micro-batch do not") {
  const auto& c = shipped_check();
  const gs::ScenarioPoint d = gs::testing::preset_point("default");
  auto fit = gs::check_memory_fit(model(), c, d.assignments, d.variants);
  REQUIRE(fit);
  CHECK(fit->fits);
  CHECK(fit->capacity == doctest::Approx(8 * 80.0 * (1ull << 30)));  // H100 SXM: 80 GiB, in bits (the SI base unit)
  CHECK(fit->required < fit->capacity);
  double sum = 0;
  for (const auto& [name, bytes] : fit->parts) sum += bytes;
  REQUIRE(fit->parts.size() == 6);
  CHECK(sum == doctest::Approx(fit->required).epsilon(1e-9));

  // Same tokens per step, 16 sequences per micro-batch: the activations alone pass the capacity.
  const gs::ScenarioPoint big = with_micro_batch(16, 2);
  auto over = gs::check_memory_fit(model(), c, big.assignments, big.variants);
  REQUIRE(over);
  CHECK_FALSE(over->fits);
  CHECK(over->required > 4 * over->capacity);
  const std::string text = gs::memory_fit_text(model(), c, *over);
  CHECK(text.find("does not fit in HBM: needs ") == 0);
  CHECK(text.find("(training.fits_in_hbm)") != std::string::npos);
  CHECK(text.find("    activations: ") != std::string::npos);
}

TEST_CASE("memory fit: the interpreted check gives the resolver's exact values to 1e-12, fitting or not") {
  const auto& c = shipped_check();
  for (const gs::ScenarioPoint& s : {gs::testing::preset_point("default"), with_micro_batch(16, 2), with_micro_batch(2, 16)}) {
    auto fit = gs::check_memory_fit(model(), c, s.assignments, s.variants);
    REQUIRE(fit);
    gs::Resolver exact(model(), s.assignments, s.variants);
    const double required = *exact.resolve(c.required).number, capacity = *exact.resolve(c.capacity).number;
    CHECK(fit->required == doctest::Approx(required).epsilon(1e-12));
    CHECK(fit->capacity == doctest::Approx(capacity).epsilon(1e-12));
    CHECK(fit->fits == (required <= capacity));
    REQUIRE(fit->parts.size() == c.parts.size());
    for (size_t i = 0; i < c.parts.size(); ++i) {
      CHECK(fit->parts[i].first == c.parts[i].name);
      CHECK(fit->parts[i].second == doctest::Approx(*exact.resolve(c.parts[i].var).number).epsilon(1e-12));
    }
  }
}

TEST_CASE("memory fit: a scenario that does not price memory gives no verdict") {
  const gs::ScenarioPoint f = gs::testing::preset_point("dense_training_cost_fixture");
  CHECK_FALSE(gs::check_memory_fit(model(), shipped_check(), f.assignments, f.variants));
}

TEST_CASE("memory fit: the sweep marks each point, in the same cone as its targets") {
  const auto& reg = model();
  const gs::ScenarioPoint d = gs::testing::preset_point("default");
  auto axes = gs::parse_sweep_axes(reg, {"par.batch.micro_per_gpu=1,2,4", "par.batch.grad_accum_steps=32,16,8"});
  const uint32_t tput = *reg.find_var("training.tokens_per_sec");
  gs::SweepResult r = gs::run_sweep(reg, d, {tput}, axes, true, "jit", 1, {}, &shipped_check());
  REQUIRE(r.points == 3);
  CHECK(r.targets == std::vector<uint32_t>{tput});  // the check's two sides are not targets
  CHECK(r.y.size() == 3);
  CHECK(r.fits == std::vector<int8_t>{1, 1, 0});
  CHECK(r.not_fitting == 1);
  CHECK(r.fits_column == "fits");
  // Without the check the targets' values are the same and no column is made.
  gs::SweepResult plain = gs::run_sweep(reg, d, {tput}, axes, true, "jit", 1);
  CHECK(plain.fits.empty());
  for (size_t p = 0; p < 3; ++p) CHECK(plain.y[p] == doctest::Approx(r.y[p]).epsilon(1e-12));
}

TEST_CASE("memory fit: a bad check file is an error with its line") {
  const auto& reg = model();
  CHECK_THROWS_WITH_AS(gs::parse_memory_fit_check(reg, "schema = \"x\"\n", "h.toml"), doctest::Contains("missing [memory]"), gs::PresetError);
  CHECK_THROWS_WITH_AS(gs::parse_memory_fit_check(reg, "[memory]\nconstraint = \"training.mfu_at_mst_one\"\n", "h.toml"),
                       doctest::Contains("h.toml:2:"), gs::PresetError);
  CHECK_THROWS_WITH_AS(gs::parse_memory_fit_check(reg, "[memory]\nconstraint = \"training.tokens_per_sec_nominal\"\n", "h.toml"),
                       doctest::Contains("is not a constraint of the model"), gs::PresetError);
  CHECK_THROWS_WITH_AS(gs::parse_memory_fit_check(reg, "[memory]\nconstraint = \"training.mfu_at_most_one\"\n", "h.toml"),
                       doctest::Contains("one variable on each side"), gs::PresetError);
  CHECK_THROWS_WITH_AS(gs::parse_memory_fit_check(reg, "[memory]\nconstraint = \"training.fits_in_hbm\"\nparts = [{ name = \"w\", var = \"par.mem.paramz\" }]\n", "h.toml"),
                       doctest::Contains("h.toml:3:"), gs::PresetError);
  CHECK_THROWS_WITH_AS(gs::parse_memory_fit_check(reg, "[memory\n", "h.toml"), doctest::Contains("h.toml:1:"), gs::PresetError);
  // A partial model without the constraint has no check; a malformed file is still an error.
  CHECK_FALSE(gs::parse_memory_fit_check(reg, "[memory]\nconstraint = \"x.fits\"\n", "h.toml", true));
  CHECK_THROWS_AS(gs::parse_memory_fit_check(reg, "[memory\n", "h.toml", true), gs::PresetError);
  // A presets folder without the file (a user's own) has no check.
  CHECK_FALSE(gs::load_memory_fit_check(reg, std::string(GSTACK_SOURCE_DIR) + "/presets/strategy"));
}
