// Elasticities and variance shares against hand arithmetic.
//
// The dense training cost fixture: total cost = capex 20 USD/s x 1.5 s + power 5200 W x 1.5 s x 1e-7
// USD/J = 30 + 7.8e-4 USD over 1e7 tokens. Both costs scale with the wallclock, and the wallclock with
// the token count, so cost per token does not move with the token count at all.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "runtime/analysis/influence.h"
#include "runtime/analysis/scenario.h"
#include "support.h"

using namespace gs;
using namespace gs::testing;

namespace {

const InputInfluence& input(const Registry& reg, const InfluenceResult& r, const std::string& name) {
  auto it = std::find_if(r.inputs.begin(), r.inputs.end(), [&](const InputInfluence& in) { return reg.var(in.var).name == name; });
  REQUIRE_MESSAGE(it != r.inputs.end(), "no input " << name);
  return *it;
}

double elasticity(const Registry& reg, const InfluenceResult& r, const std::string& name) {
  const auto& in = input(reg, r, name);
  REQUIRE_MESSAGE(in.elasticity, "no elasticity for " << name);
  return *in.elasticity;
}

InfluenceResult fixture_influence(const Registry& reg, const std::map<uint32_t, Distribution>& uncertain = {}) {
  auto s = scenario(reg, {"dense_training_cost_fixture"});
  Graph g(reg);
  return influence(reg, s.assignments, s.variants, id(reg, "econ.cost.per_token"), g, uncertain);
}

constexpr double kTotal = 30.00078;  // USD, the fixture's run cost

}  // namespace

TEST_CASE("fixture on the shipped model: elasticities of cost per token by hand") {
  const auto& reg = model();
  auto r = fixture_influence(reg);
  REQUIRE(r.value);
  CHECK(close(*r.value, 3.000078e-6, 1e-12));
  CHECK(r.missing == 0);
  CHECK(r.numeric_partials == 0);  // every relation on this cone differentiates symbolically

  // Capex is 30 of the 30.00078 USD and scales linearly with its rate.
  CHECK(close(elasticity(reg, r, "econ.job.capex_rate"), 30 / kTotal, 1e-12));
  // d(cost per token)/d(capex rate) = wallclock / tokens = 1.5 s / 1e7 token.
  CHECK(close(*input(reg, r, "econ.job.capex_rate").derivative, 1.5e-7, 1e-12));
  // Wallclock, capex and energy all scale with the tokens: cost per token is flat in them.
  CHECK(std::fabs(elasticity(reg, r, "training.total_tokens")) < 1e-12);
  // The tariff touches only the power cost; with a peak fraction of 1 the off-peak price does nothing.
  CHECK(close(elasticity(reg, r, "econ.power.price_kwh_peak"), 7.8e-4 / kTotal, 1e-9));
  CHECK(elasticity(reg, r, "econ.power.price_kwh_offpeak") == 0);
  // Exposed communication is 25 of the 150 ms step, and the whole cost follows the step time.
  CHECK(close(elasticity(reg, r, "training.t_exposed_comm"), 1.0 / 6, 1e-12));
  CHECK(close(elasticity(reg, r, "gpu.peak_flops_power_limited"), -5.0 / 6, 1e-12));
  CHECK(close(elasticity(reg, r, "arch.tokens_per_step"), -1, 1e-12));
  CHECK(close(elasticity(reg, r, "training.cluster_availability"), -1, 1e-12));
  // 4000 of the 5200 W are GPU board power: 6e-4 of the power cost.
  CHECK(close(elasticity(reg, r, "gpu.power.total"), 6e-4 / kTotal, 1e-9));
  CHECK(elasticity(reg, r, "econ.run.opex_misc_cost") == 0);  // its value is 0, so its elasticity is too

  // Ranked by |elasticity|, largest first; nothing is missing.
  for (size_t i = 1; i < r.inputs.size(); ++i) {
    REQUIRE(r.inputs[i - 1].elasticity);
    REQUIRE(r.inputs[i].elasticity);
    CHECK(std::fabs(*r.inputs[i - 1].elasticity) >= std::fabs(*r.inputs[i].elasticity));
  }
  CHECK(input(reg, r, "econ.job.capex_rate").status == "override");
  CHECK(input(reg, r, "training.total_tokens").status == "assigned");
  CHECK(input(reg, r, "training.total_tokens").category == "primitive-root");
}

TEST_CASE("fixture on the test model: couplings through the cluster and the job's share of it") {
  const auto& reg = mini();
  auto r = fixture_influence(reg);
  REQUIRE(r.value);
  CHECK(close(*r.value, 3.000078e-6, 1e-12));
  CHECK(close(elasticity(reg, r, "econ.job.capex_rate"), 30 / kTotal, 1e-12));
  CHECK(std::fabs(elasticity(reg, r, "training.total_tokens")) < 1e-12);
  // With both tariffs equal, moving the peak fraction changes nothing.
  CHECK(elasticity(reg, r, "econ.power.peak_energy_fraction") == 0);
  // n_gpus: compute time goes as 1/n (-5/6 of the cost), the job's share of the site's power as n.
  CHECK(close(elasticity(reg, r, "par.n_gpus"), -5.0 / 6 + 7.8e-4 / kTotal, 1e-9));
  // GPUs per node: +500 W of IT power each, while the job's share of the site falls as 8/n:
  // d(power)/dn = 500 - 5200/8 = -150 W per GPU, times 1.5 s x 1e-7 USD/J, times n = 8.
  CHECK(close(elasticity(reg, r, "cluster.node.n_gpus"), 8 * (500 - 5200.0 / 8) * 1.5 * 1e-7 / kTotal, 1e-9));
}

TEST_CASE("inputs that block the target rank first and have no elasticity") {
  const auto& reg = model();
  auto s = scenario(reg, {"dense_training_cost_fixture"});
  // Without the pinned capex rate its relation needs the hardware prices, which the fixture lacks.
  s.assignments.erase(id(reg, "econ.job.capex_rate"));
  Graph g(reg);
  auto r = influence(reg, s.assignments, s.variants, id(reg, "econ.cost.per_token"), g);
  CHECK_FALSE(r.value);
  REQUIRE(r.missing >= 1);
  const auto& first = r.inputs.front();
  CHECK(first.status == "missing");
  CHECK_FALSE(first.category.empty());
  CHECK_FALSE(first.elasticity);
  for (size_t i = 0; i < r.inputs.size(); ++i) CHECK((r.inputs[i].status == "missing") == (i < r.missing));
  // Blocking inputs among themselves: most dependents first.
  for (size_t i = 1; i < r.missing; ++i) CHECK(r.inputs[i - 1].dependents >= r.inputs[i].dependents);

  // Nothing assigned: the target's own inputs are all missing.
  auto empty = influence(reg, {}, {}, id(reg, "econ.cost.per_token"), g);
  CHECK(empty.missing == empty.inputs.size());
  CHECK(empty.missing >= 1);
}

TEST_CASE("an assigned target is its own only input") {
  const auto& reg = model();
  Graph g(reg);
  const uint32_t cost = id(reg, "econ.cost.per_token");
  auto r = influence(reg, {{cost, 2e-6}}, {}, cost, g);
  REQUIRE(r.inputs.size() == 1);
  CHECK(r.inputs[0].var == cost);
  CHECK(*r.inputs[0].elasticity == 1);
}

TEST_CASE("variance shares: first-order Taylor, from a hand-built distribution map") {
  const auto& reg = model();
  const uint32_t capex = id(reg, "econ.job.capex_rate"), peak = id(reg, "econ.power.price_kwh_peak");
  auto s = scenario(reg, {"dense_training_cost_fixture"});
  // The same 10% coefficient of variation on both: the shares go as the squared elasticities,
  // 30^2 : (7.8e-4)^2.
  Distribution capex_d, peak_d;
  capex_d.kind = peak_d.kind = Distribution::Kind::Normal;
  capex_d.a = s.assignments.at(capex), capex_d.b = 0.1 * capex_d.a;
  peak_d.a = s.assignments.at(peak), peak_d.b = 0.1 * peak_d.a;
  // An uncertain input the target does not read is reported, not counted.
  const uint32_t outside = id(reg, "gpu.tdp");
  Distribution far;
  far.kind = Distribution::Kind::Uniform, far.a = 1, far.b = 2;
  auto r = fixture_influence(reg, {{capex, capex_d}, {peak, peak_d}, {outside, far}});
  const double a = 30 * 30, b = 7.8e-4 * 7.8e-4;
  REQUIRE(input(reg, r, "econ.job.capex_rate").variance_share);
  CHECK(close(*input(reg, r, "econ.job.capex_rate").variance_share, a / (a + b), 1e-12));
  CHECK(close(*input(reg, r, "econ.power.price_kwh_peak").variance_share, b / (a + b), 1e-9));
  CHECK_FALSE(input(reg, r, "training.total_tokens").variance_share);  // no distribution given
  REQUIRE(r.linear_sd);
  CHECK(close(*r.linear_sd, 0.1 * std::sqrt(a + b) / 1e7, 1e-12));
  REQUIRE(r.uncertain_outside.size() == 1);
  CHECK(r.uncertain_outside[0] == outside);
}

TEST_CASE("variance shares: an input at zero still gets its share from the derivative") {
  std::vector<InputInfluence> inputs(2);
  inputs[0].derivative = 2, inputs[0].value = 0;
  inputs[0].distribution = Distribution{Distribution::Kind::Uniform, -1, 1, 0};  // variance 1/3
  inputs[1].derivative = 1, inputs[1].value = 5;
  inputs[1].distribution = Distribution{Distribution::Kind::Normal, 5, 1, 0};  // variance 1
  const double total = assign_variance_shares(inputs);
  CHECK(close(total, 4.0 / 3 + 1, 1e-15));
  CHECK(close(*inputs[0].variance_share, (4.0 / 3) / (7.0 / 3), 1e-15));
  CHECK(close(*inputs[1].variance_share, 1 / (7.0 / 3), 1e-15));
}

TEST_CASE("distribution variances") {
  CHECK(close(distribution_variance({Distribution::Kind::Uniform, 0, 12, 0}), 12, 1e-15));
  CHECK(close(distribution_variance({Distribution::Kind::Normal, 5, 3, 0}), 9, 1e-15));
  CHECK(close(distribution_variance({Distribution::Kind::Triangular, 0, 3, 0}), 0.5, 1e-15));
  CHECK(close(distribution_variance({Distribution::Kind::Lognormal, 1, 0.5, 0}), std::expm1(0.25) * std::exp(0.25), 1e-15));
}

TEST_CASE("non-smooth relations differentiate on the branch active at the point") {
  const auto& reg = mini();
  Graph g(reg);
  const uint32_t a = id(reg, "lab.a"), b = id(reg, "lab.b"), clamped = id(reg, "lab.clamped");
  // clamped = min(max(a, 0), b)
  auto inside = influence(reg, {{a, 1}, {b, 2}}, {}, clamped, g);
  CHECK(*input(reg, inside, "lab.a").elasticity == 1);
  CHECK(*input(reg, inside, "lab.b").elasticity == 0);
  auto capped = influence(reg, {{a, 3}, {b, 2}}, {}, clamped, g);
  CHECK(*input(reg, capped, "lab.a").elasticity == 0);
  CHECK(*input(reg, capped, "lab.b").elasticity == 1);
  auto floored = influence(reg, {{a, -1}, {b, 2}}, {}, clamped, g);
  CHECK(*input(reg, floored, "lab.a").derivative == 0);

  // throttle = 1 if p <= tdp, else tdp / p
  const uint32_t p = id(reg, "lab.p"), tdp = id(reg, "lab.tdp"), throttle = id(reg, "lab.throttle");
  auto over = influence(reg, {{p, 500}, {tdp, 400}}, {}, throttle, g);
  CHECK(close(*input(reg, over, "lab.p").elasticity, -1, 1e-15));
  CHECK(close(*input(reg, over, "lab.tdp").elasticity, 1, 1e-15));
  auto under = influence(reg, {{p, 300}, {tdp, 400}}, {}, throttle, g);
  CHECK(*input(reg, under, "lab.p").elasticity == 0);
  CHECK(under.numeric_partials == 0);
}

TEST_CASE("an iterative relation falls back to a central difference of the exact unfolding") {
  const auto& reg = mini();
  Graph g(reg);
  const uint32_t s = id(reg, "lab.s"), n = id(reg, "lab.n_iter"), root = id(reg, "lab.root");
  auto r = influence(reg, {{s, 2}, {n, 6}}, {}, root, g);
  REQUIRE(r.value);
  CHECK(close(*r.value, std::sqrt(2.0), 1e-12));
  // Newton's iterate converges to sqrt(s), whose elasticity is 1/2.
  CHECK(close(*input(reg, r, "lab.s").elasticity, 0.5, 1e-6));
  CHECK(r.numeric_partials >= 1);
  // A step count has no derivative (a fractional count is not a valid iteration).
  CHECK_FALSE(input(reg, r, "lab.n_iter").derivative);
}
