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
#include "runtime/uq/uncertainty.h"
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

// The block interpreter (batches of 4 rows and more) runs the scalar run's operations lane by lane, so
// every row of a batch equals one() of that row bit for bit, at block boundaries and partial blocks too.
TEST_CASE("interpreter batches: every row equals the one-row answer exactly, whatever the batch size") {
  const auto& reg = shipped_model();
  const auto scenario = gs::testing::preset_point("default");
  const auto targets = headlines(reg);
  gs::Plan plan(reg, scenario.assignments, scenario.variants, targets, {}, /*bake=*/false);
  REQUIRE(plan.complete());
  const gs::ConeInterpreter interp(plan.program());
  const size_t n_in = interp.n_inputs(), n_out = interp.n_outputs();
  gs::Rng rng(41);
  for (size_t rows : {size_t(1), size_t(3), size_t(4), size_t(31), size_t(32), size_t(33), size_t(100)}) {
    std::vector<double> in(rows * n_in), out(rows * n_out), one(n_out);
    for (size_t r = 0; r < rows; ++r)
      for (size_t i = 0; i < n_in; ++i) {
        const auto& a = reg.var(plan.program().inputs[i]).assume;
        in[r * n_in + i] = plan.base()[i] * (a.integer || a.binary || a.has_range ? 1.0 : 0.7 + 0.7 * rng.uniform());
      }
    if (rows == 100) in[57 * n_in] = NAN;  // a NaN in one lane stays in its row
    interp.batch(in.data(), out.data(), rows);
    size_t nan_rows = 0;
    for (size_t r = 0; r < rows; ++r) {
      interp.one(in.data() + r * n_in, one.data());
      bool any_nan = false;
      for (size_t o = 0; o < n_out; ++o) {
        INFO("rows " << rows << " row " << r << " output " << o);
        const double b = out[r * n_out + o];
        CHECK((std::isnan(b) ? std::isnan(one[o]) : b == one[o]));
        any_nan = any_nan || std::isnan(b);
      }
      nan_rows += any_nan;
    }
    CHECK(nan_rows <= (rows == 100 ? 1u : 0u));
  }
}

// The JIT's SIMD block batch (structure-of-arrays blocks, vectorized loop, constant divisors as
// reciprocals, integer powers as multiplications, shared divisors' reciprocals), the same with libmvec's
// vector math and without any of the options, against the scalar JIT and the interpreter, on batches
// whose sizes straddle the blocks.
TEST_CASE("SIMD block JIT, scalar JIT and interpreter agree to 1e-12 on random batches, block edges included") {
  const auto& reg = shipped_model();
  const auto scenario = gs::testing::preset_point("default");
  const uint32_t cost = *reg.find_var("econ.cost.per_token");
  // Deep inputs (the layout reaches memory, communication and the pipeline) and a shallow one.
  std::vector<uint32_t> vary;
  for (const char* name : {"par.dp", "arch.d_model", "econ.gpu.capex", "econ.cluster.utilization"}) vary.push_back(*reg.find_var(name));
  gs::Plan plan(reg, scenario.assignments, scenario.variants, {cost}, vary);
  REQUIRE(plan.complete());
  REQUIRE(plan.program().inputs.size() >= 3);
  gs::Jit scalar(gs::JitOptions{false, false, false, false}), plain(gs::JitOptions{true, false, false, false}), simd(gs::JitOptions{}),
      vector_math(gs::JitOptions{true, true, true, true});
  const auto a = scalar.compile(plan.program()), p = plain.compile(plan.program()), b = simd.compile(plan.program()),
             m = vector_math.compile(plan.program());
  const auto& interp = plan.cone(gs::Evaluator::Interpreter);
  const size_t n_in = a.n_inputs;
  gs::Rng rng(2);
  for (size_t rows : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000)}) {
    std::vector<double> in(rows * n_in), ya(rows), yp(rows), yb(rows), ym(rows), yi(rows);
    for (size_t r = 0; r < rows; ++r)
      for (size_t i = 0; i < n_in; ++i) in[r * n_in + i] = plan.base()[i] * (0.5 + 1.5 * rng.uniform());
    a.batch(in.data(), ya.data(), rows);
    p.batch(in.data(), yp.data(), rows);
    b.batch(in.data(), yb.data(), rows);
    m.batch(in.data(), ym.data(), rows);
    interp.batch(in.data(), yi.data(), rows);
    size_t finite = 0;
    for (size_t r = 0; r < rows; ++r) {
      INFO("rows " << rows << " row " << r << std::setprecision(17) << " scalar " << ya[r] << " simd " << yb[r] << " without options " << yp[r]
                    << " with libmvec " << ym[r] << " interp " << yi[r]);
      CHECK(close(ya[r], yb[r], 1e-12));
      CHECK(close(yi[r], yp[r], 1e-12));
      CHECK(close(yi[r], ym[r], 1e-12));
      CHECK(close(yi[r], yb[r], 1e-12));
      double one = 0;
      b.one(in.data() + r * n_in, &one);
      CHECK(close(one, yb[r], 1e-12));
      finite += std::isfinite(yb[r]);
    }
    CHECK(finite == rows);
  }
}

// Randomized QMC: Halton coordinates are radical inverses; the interval is reproducible for a seed and
// thread count, and it lands on a 2e5-draw Monte Carlo reference within a few of its stated errors.
TEST_CASE("resolve's randomized-QMC interval: Halton points, reproducible, within its stated error of plain Monte Carlo") {
  CHECK(gs::halton(1, 0) == 0.5);
  CHECK(gs::halton(2, 0) == 0.25);
  CHECK(gs::halton(3, 0) == 0.75);
  CHECK(gs::halton(1, 1) == doctest::Approx(1.0 / 3).epsilon(1e-15));
  CHECK(gs::halton(5, 1) == doctest::Approx(2.0 / 3 + 1.0 / 9).epsilon(1e-15));
  const auto& reg = shipped_model();
  gs::Preset p = gs::testing::shipped_presets().load("default");
  const gs::ScenarioPoint s{p.assignments, p.variants, p.uncertain};
  const uint32_t cost = *reg.find_var("econ.cost.per_token");
  auto a = gs::interval_of(reg, s, cost, 2048, 1), b = gs::interval_of(reg, s, cost, 2048, 1);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->p5 == b->p5);
  CHECK(a->p95 == b->p95);
  CHECK(a->samples == 2048);
  CHECK(a->replicates == gs::kRqmcReplicates);
  CHECK(std::string(a->method) == "rqmc-halton");
  CHECK(a->p5_se > 0);
  CHECK(a->p95_se > 0);
  CHECK(a->p5_se < 0.01 * a->p5);  // a stated error well below the interval's width
  // The reference: plain Monte Carlo with 2e5 draws (its own percentile error is about 0.1% here).
  std::vector<uint32_t> vary;
  for (const auto& [var, dist] : s.uncertain) vary.push_back(var);
  gs::Plan plan(reg, s.assignments, s.variants, {cost}, vary);
  std::vector<gs::UncertainInput> inputs;
  for (const auto& [var, dist] : s.uncertain)
    if (auto c = plan.column(var)) inputs.push_back({*c, dist});
  const auto ref = gs::summarize(std::move(gs::monte_carlo(plan.cone(gs::Evaluator::Jit), plan.base(), inputs, 200000, 5, 2)[0]), 1);
  INFO("rqmc p5 " << a->p5 << " +- " << a->p5_se << " reference " << ref.p5);
  INFO("rqmc p95 " << a->p95 << " +- " << a->p95_se << " reference " << ref.p95);
  const double ref_se5 = 0.002 * ref.p5, ref_se95 = 0.002 * ref.p95;  // generous bound on the reference's own error
  CHECK(std::fabs(a->p5 - ref.p5) < 4 * a->p5_se + 3 * ref_se5);
  CHECK(std::fabs(a->p95 - ref.p95) < 4 * a->p95_se + 3 * ref_se95);
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

TEST_CASE("interpreted_value: a count equals the resolver's exactly; nothing where an input is missing") {
  const auto& reg = shipped_model();
  const gs::ScenarioPoint p = gs::testing::preset_point("default");
  for (const char* name : {"par.n_gpus", "par.batch.global", "arch.n_layers", "arch.n_heads", "arch.seq_len", "arch.params_total_dense"}) {
    const uint32_t var = *reg.find_var(name);
    const auto fast = gs::interpreted_value(reg, p.assignments, p.variants, var);
    const auto exact = gs::Resolver(reg, p.assignments, p.variants).resolve(var).number;
    REQUIRE(fast);
    REQUIRE(exact);
    CHECK_MESSAGE(*fast == *exact, name);  // whole numbers: the same double, bit for bit
  }
  CHECK_FALSE(gs::interpreted_value(reg, {}, {}, *reg.find_var("econ.cost.per_token")));
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
