// The evaluation tiers against each other on the shipped model: the reference interpreter, the JIT and
// GiNaC agree to 1e-12 relative on random points of the headlines' cones; the Plan picks its evaluator
// by batch size, and an uncertainty interval does not depend on which evaluator drew it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>

#include "runtime/headline.h"
#include "runtime/jit/interpreter.h"
#include "runtime/resolver.h"
#include "runtime/rng.h"
#include "runtime/uq/commands.h"
#include "runtime/uq/plan.h"
#include "tests/unit/support/shipped_model.h"

namespace {

using gs::testing::shipped_model;

bool close(double a, double b, double rel) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) + 1e-300;
}

std::vector<uint32_t> headlines(const gs::Registry& reg) {
  std::vector<uint32_t> ids;
  for (const gs::Export& e : reg.exports(gs::kExportHeadline)) ids.push_back(e.var);
  return ids;
}

// Restores the process policy when a test changes it.
struct PolicyGuard {
  gs::EvaluatorPolicy saved = gs::evaluator_policy();
  ~PolicyGuard() { gs::set_evaluator_policy(saved); }
};

}  // namespace

// Every assignment stays an input (no baking), so the random points reach the whole cone. Reals are
// scaled by a factor in [0.7, 1.4]; integers and binaries keep their preset values (they choose layouts
// the model validates elsewhere).
TEST_CASE("headline cones: reference interpreter, JIT and GiNaC agree to 1e-12 relative at random points") {
  const auto& reg = shipped_model();
  const auto scenario = gs::testing::preset_point("default");
  const auto targets = headlines(reg);
  REQUIRE(targets.size() == reg.exports(gs::kExportHeadline).size());
  REQUIRE(targets.size() >= 6);
  gs::Plan plan(reg, scenario.assignments, scenario.variants, targets, {}, /*bake=*/false);
  REQUIRE(plan.complete());
  const auto& interp = plan.cone(gs::Evaluator::Interpreter);
  const auto& jit = plan.cone(gs::Evaluator::Jit);
  CHECK(std::string(interp.evaluator) == "interpreter");
  CHECK(std::string(jit.evaluator) == "jit");
  const auto& inputs = plan.program().inputs;
  gs::Rng rng(14);
  size_t compared_ginac = 0;
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<double> in = plan.base();
    auto assignments = scenario.assignments;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& a = reg.var(inputs[i]).assume;
      if (trial > 0 && !a.integer && !a.binary && !a.has_range) in[i] *= 0.7 + 0.7 * rng.uniform();
      assignments[inputs[i]] = in[i];
    }
    std::vector<double> y_interp(targets.size()), y_jit(targets.size());
    interp.one(in.data(), y_interp.data());
    jit.one(in.data(), y_jit.data());
    gs::Resolver resolver(reg, assignments, scenario.variants);
    for (size_t t = 0; t < targets.size(); ++t) {
      INFO(reg.var(targets[t]).name << " trial " << trial);
      INFO(std::setprecision(17) << "interpreter " << y_interp[t] << " jit " << y_jit[t]);
      CHECK(std::isfinite(y_interp[t]));
      CHECK(close(y_interp[t], y_jit[t], 1e-12));
      auto r = resolver.resolve(targets[t]);
      REQUIRE(r.number);
      INFO(std::setprecision(17) << "ginac " << *r.number);
      CHECK(close(y_interp[t], *r.number, 1e-12));
      ++compared_ginac;
    }
  }
  CHECK(compared_ginac == 6 * targets.size());
}

TEST_CASE("the interpreter folds what reads no input: a baked headline cone is much shorter") {
  const auto& reg = shipped_model();
  const auto scenario = gs::testing::preset_point("default");
  const uint32_t cost = *reg.find_var("econ.cost.per_token");
  gs::Plan open(reg, scenario.assignments, scenario.variants, {cost}, {}, false);
  gs::Plan baked(reg, scenario.assignments, scenario.variants, {cost});
  REQUIRE(open.complete());
  REQUIRE(baked.complete());
  const gs::ConeInterpreter all(open.program()), folded(baked.program());
  CHECK(folded.n_inputs() == 0);
  CHECK(folded.instructions() == 0);  // the whole answer is one constant
  CHECK(all.instructions() > 100);
  double a = 0, b = 0;
  all.one(open.base().data(), &a);
  folded.one(nullptr, &b);
  CHECK(close(a, b, 1e-12));
  CHECK(close(baked.evaluate_base()[0], a, 1e-12));
}

TEST_CASE("interpreter semantics: NaN-propagating min/max, piecewise, known exponents, malformed programs") {
  using gs::Node, gs::Op;
  gs::ConeProgram p;
  p.inputs = {0, 1};
  auto call = [](gs::Func f, uint32_t n) { return Node{Op::Call, uint32_t(f), n, 0}; };
  // v2 = min(x, y); v3 = max(x, y); v4 = (x < y ? x : y*2); v5 = x^0.5 + y^2 + x^-1
  p.steps.push_back({2, {{{Op::Var, 0}, {Op::Var, 1}, call(gs::Func::Min, 2)}}});
  p.steps.push_back({3, {{{Op::Var, 0}, {Op::Var, 1}, call(gs::Func::Max, 2)}}});
  p.steps.push_back({4, {{{Op::Var, 0}, {Op::Var, 0}, {Op::Var, 1}, {Op::Lt}, {Op::Var, 1}, {Op::Num, 0, 0, 2}, {Op::Mul}, {Op::Piecewise, 0, 3}}}});
  p.steps.push_back({5, {{{Op::Var, 0}, {Op::Num, 0, 0, 0.5}, {Op::Pow}, {Op::Var, 1}, {Op::Num, 0, 0, 2}, {Op::Pow}, {Op::Add},
                          {Op::Var, 0}, {Op::Num, 0, 0, -1}, {Op::Pow}, {Op::Add}}}});
  p.outputs = {2, 3, 4, 5};
  const gs::ConeInterpreter in(p);
  double out[4];
  const double xy[2] = {4, 3};
  in.one(xy, out);
  CHECK(out[0] == 3);
  CHECK(out[1] == 4);
  CHECK(out[2] == 6);
  CHECK(out[3] == doctest::Approx(2 + 9 + 0.25).epsilon(1e-15));
  const double nan_y[2] = {1, NAN};
  in.one(nan_y, out);
  CHECK(std::isnan(out[0]));
  CHECK(std::isnan(out[1]));
  CHECK(std::isnan(out[2]));  // 1 < NaN is false (ordered comparison): the otherwise branch, NaN * 2
  auto bad = p;
  bad.steps[0].expr.nodes.pop_back();
  CHECK_THROWS_WITH_AS(gs::ConeInterpreter{bad}, doctest::Contains("leaves 2 values"), std::runtime_error);
  bad = p;
  bad.outputs.push_back(99);
  CHECK_THROWS_WITH_AS(gs::ConeInterpreter{bad}, doctest::Contains("output variable 99"), std::runtime_error);
  bad = p;
  bad.steps[0].expr.nodes[0].index = 7;
  CHECK_THROWS_WITH_AS(gs::ConeInterpreter{bad}, doctest::Contains("used before it is computed"), std::runtime_error);
}

TEST_CASE("the plan picks the interpreter below the crossover and the JIT from it; the policy overrides") {
  PolicyGuard guard;
  gs::set_evaluator_policy(gs::EvaluatorPolicy::Auto);
  CHECK(gs::choose_evaluator(1) == gs::Evaluator::Interpreter);
  CHECK(gs::choose_evaluator(gs::kJitCrossoverRows - 1) == gs::Evaluator::Interpreter);
  CHECK(gs::choose_evaluator(gs::kJitCrossoverRows) == gs::Evaluator::Jit);
  gs::set_evaluator_policy(gs::EvaluatorPolicy::Jit);
  CHECK(gs::choose_evaluator(1) == gs::Evaluator::Jit);
  gs::set_evaluator_policy(gs::EvaluatorPolicy::Interpreter);
  CHECK(gs::choose_evaluator(size_t(1) << 40) == gs::Evaluator::Interpreter);
  CHECK(gs::parse_evaluator_policy("auto") == gs::EvaluatorPolicy::Auto);
  CHECK_FALSE(gs::parse_evaluator_policy("llvm"));
}

TEST_CASE("a plan names its missing inputs instead of defaulting them") {
  const auto& reg = shipped_model();
  gs::Plan plan(reg, {}, {}, {*reg.find_var("econ.cost.per_token")});
  CHECK_FALSE(plan.complete());
  const uint32_t tokens = *reg.find_var("training.total_tokens");
  CHECK(std::find(plan.missing().begin(), plan.missing().end(), tokens) != plan.missing().end());
  CHECK(plan.describe_missing().find("the scenario leaves inputs missing: ") == 0);
  CHECK(plan.describe_missing().find(reg.var(plan.missing()[0]).name) != std::string::npos);
  CHECK_THROWS_AS(plan.cone(gs::Evaluator::Interpreter), std::runtime_error);
}

TEST_CASE("resolve's interval: the same 1e5 seeded samples through the interpreter and the JIT agree to 1e-12") {
  PolicyGuard guard;
  const auto& reg = shipped_model();
  gs::Preset p = gs::testing::shipped_presets().load("default");
  const gs::ScenarioPoint s{p.assignments, p.variants, p.uncertain};
  REQUIRE_FALSE(s.uncertain.empty());
  const uint32_t cost = *reg.find_var("econ.cost.per_token");
  gs::set_evaluator_policy(gs::EvaluatorPolicy::Interpreter);
  auto a = gs::interval_of(reg, s, cost, 100000, 7);
  gs::set_evaluator_policy(gs::EvaluatorPolicy::Jit);
  auto b = gs::interval_of(reg, s, cost, 100000, 7);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->samples == 100000);
  CHECK(a->p5 < a->p50);
  CHECK(a->p50 < a->p95);
  CHECK(close(a->p5, b->p5, 1e-12));
  CHECK(close(a->p50, b->p50, 1e-12));
  CHECK(close(a->p95, b->p95, 1e-12));
  CHECK(close(a->mean, b->mean, 1e-12));
}
