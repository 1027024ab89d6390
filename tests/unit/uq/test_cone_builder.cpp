// Compiled cones against the GiNaC resolver on the real model: the fixture's values, and every relation
// of the model on random valid inputs; and a cone as deep as a long model.
#include <doctest/doctest.h>

#include <cmath>
#include <iomanip>
#include <map>

#include "runtime/jit/interpreter.h"
#include "runtime/presets.h"
#include "runtime/symbolic.h"
#include "runtime/uq/cone_builder.h"
#include "runtime/rng.h"

namespace {

const gs::Registry& model() {
  static gs::Registry reg = gs::Registry::load(std::string(GSTACK_BINARY_DIR) + "/model.gsimg");
  return reg;
}

gs::Preset preset(const std::string& name) {
  return gs::PresetLibrary(model(), std::string(GSTACK_SOURCE_DIR) + "/presets").load(name);
}

bool close(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) + 1e-300; }

// The exact binary value of a double as a GiNaC rational. gs::sym::number keeps the shortest decimal that reads
// back as the double, up to half an ulp away from it; a subtraction of nearly equal inputs (1 - f with f near 1)
// magnifies that half ulp past 1e-12 of the result.
GiNaC::ex exact_number(double v) {
  int exponent = 0;
  const double fraction = std::frexp(v, &exponent);  // v = fraction * 2^exponent, 0.5 <= |fraction| < 1
  const long mantissa = static_cast<long>(std::ldexp(fraction, 53));
  return GiNaC::numeric(mantissa) * GiNaC::pow(GiNaC::numeric(2), exponent - 53);
}

}  // namespace

TEST_CASE("the fixture's cone, compiled, gives the fixture's seven values to 1e-12") {
  const auto& reg = model();
  auto p = preset("dense_training_cost_fixture");
  gs::Resolver resolver(reg, p.assignments, p.variants);
  std::vector<uint32_t> targets;
  for (const auto& [label, var] : p.targets) targets.push_back(var);
  auto build = gs::build_cone(reg, resolver, p.assignments, targets);
  REQUIRE(build.missing.empty());
  gs::Jit jit;
  auto cone = jit.compile(build.program);
  std::vector<double> out(targets.size());
  cone.one(build.base.data(), out.data());
  REQUIRE(p.expected.size() == 7);
  for (size_t i = 0; i < targets.size(); ++i) {
    INFO(reg.var(targets[i]).name);
    REQUIRE(p.expected.count(targets[i]));
    CHECK(close(out[i], p.expected.at(targets[i]), 1e-12));
    auto r = resolver.resolve(targets[i]);
    REQUIRE(r.number);
    CHECK(close(out[i], *r.number, 1e-12));
  }
}

TEST_CASE("a varied input replaces the relation that would compute it") {
  const auto& reg = model();
  auto p = preset("dense_training_cost_fixture");
  gs::Resolver resolver(reg, p.assignments, p.variants);
  const uint32_t cost = *reg.find_var("econ.cost.per_token"), capex = *reg.find_var("econ.job.capex_rate");
  auto build = gs::build_cone(reg, resolver, p.assignments, {cost}, {capex});
  REQUIRE(build.missing.empty());
  gs::Jit jit;
  auto cone = jit.compile(build.program);
  auto at = std::find(build.program.inputs.begin(), build.program.inputs.end(), capex) - build.program.inputs.begin();
  build.base[size_t(at)] = 0;
  double out = 0;
  cone.one(build.base.data(), &out);
  CHECK(close(out, 7.8e-11, 1e-12));  // the fixture's override check
}

TEST_CASE("missing inputs are named, not defaulted") {
  const auto& reg = model();
  gs::Resolver resolver(reg, {}, {});
  auto build = gs::build_cone(reg, resolver, {}, {*reg.find_var("econ.cost.per_token")});
  CHECK_FALSE(build.missing.empty());
  CHECK(std::find(build.missing.begin(), build.missing.end(), *reg.find_var("training.total_tokens")) != build.missing.end());
}

// Property: for every value relation, the JIT and GiNaC agree to 1e-12 relative on random inputs that
// respect the variables' declared assumptions and are of order one in each variable's display unit
// (uniform in base units would put e.g. a 1/yr interest rate at 1/s, where a double cannot hold 1e-12
// through the cancellation in a capital-recovery factor). All relations go into one program (one compile), each
// writing a temporary output so a variable can be read by one relation and written by another.
TEST_CASE("every relation of the model: JIT and GiNaC agree to 1e-12 relative") {
  const auto& reg = model();
  const uint32_t base_id = uint32_t(reg.var_count());
  gs::ConeProgram program;
  std::vector<uint32_t> relations;
  std::set<uint32_t> read;
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const auto& rel = reg.relation(r);
    if (!gs::defines_value(rel) || rel.rhs.empty() || rel.kind == gs::Kind::Iterative) continue;
    relations.push_back(r);
    for (uint32_t v : gs::expr_variables(rel.rhs)) read.insert(v);
  }
  program.inputs.assign(read.begin(), read.end());
  for (uint32_t r : relations) {
    program.steps.push_back({base_id + r, reg.relation(r).rhs});
    program.outputs.push_back(base_id + r);
  }
  gs::Jit jit;
  auto cone = jit.compile(program);
  gs::Rng rng(2024);
  size_t compared = 0;
  for (int trial = 0; trial < 5; ++trial) {
    std::map<uint32_t, double> values;
    std::vector<double> in;
    for (uint32_t v : program.inputs) {
      const auto& a = reg.var(v).assume;
      double x = reg.var(v).is_constant ? reg.var(v).value
               : a.binary ? double(rng.next() & 1)
               : a.integer ? double(1 + rng.next() % 8)
               : a.has_range ? a.lo + (a.hi - a.lo) * rng.uniform()
               : (0.5 + 1.5 * rng.uniform()) * reg.var(v).unit_scale;  // O(1) in the display unit: a plausible magnitude
      if (a.sign == gs::Sign::Negative || a.sign == gs::Sign::Nonpositive) x = -std::fabs(x) - (a.sign == gs::Sign::Negative ? 0.1 : 0);
      values[v] = x;
      in.push_back(x);
    }
    std::vector<double> out(program.outputs.size());
    cone.one(in.data(), out.data());
    gs::sym::Symbols symbols(&reg.var_names());
    for (size_t i = 0; i < relations.size(); ++i) {
      const auto& rel = reg.relation(relations[i]);
      std::string shown;
      auto ginac_with = [&](GiNaC::ex (*as_number)(double)) -> std::optional<double> {
        auto built = gs::sym::build(rel.rhs, [&](uint32_t v) -> std::optional<GiNaC::ex> { return as_number(values.at(v)); }, symbols);
        shown = gs::sym::to_string(built.value);
        return gs::sym::to_double(built.value);
      };
      std::optional<double> ginac;
      try {
        ginac = ginac_with(gs::sym::number);
        // Inputs as their shortest decimals first (how the resolver sees them); where that disagrees, the inputs'
        // exact binary values, which is what the JIT computed with: the two differ only by input rounding that a
        // cancellation (1 - f, f near 1) magnifies.
        if (ginac && std::isfinite(*ginac) && std::isfinite(out[i]) && !close(out[i], *ginac, 1e-12)) ginac = ginac_with(exact_number);
      } catch (const std::exception&) {  // e.g. a division by zero at this random point
        continue;
      }
      if (!ginac || !std::isfinite(*ginac) || !std::isfinite(out[i])) continue;
      INFO(rel.name);
      INFO(std::setprecision(17) << "jit " << out[i] << " ginac " << *ginac << " = " << shown);
      CHECK(close(out[i], *ginac, 1e-12));
      ++compared;
    }
  }
  CHECK(compared > 4 * relations.size());  // nearly every relation produced a finite value to compare
}

namespace {

// x0 (a root), x_i = x_{i-1} + 1 for i = 1..n: a cone as deep as the model is long.
gs::Registry deep_chain(uint32_t n) {
  gs::Image img;
  img.systems.push_back({"deep", "A chain as long as the model", {}, 0});
  for (uint32_t i = 0; i <= n; ++i) {
    gs::Variable v;
    v.name = "deep.x" + std::to_string(i);
    img.vars.push_back(std::move(v));
  }
  for (uint32_t i = 1; i <= n; ++i) {
    gs::Relation r;
    r.name = "deep.r" + std::to_string(i);
    r.lhs_var = int32_t(i);
    r.rhs.nodes = {{gs::Op::Var, i - 1}, {gs::Op::Num, 0, 0, 1.0}, {gs::Op::Add}};
    img.relations.push_back(std::move(r));
  }
  gs::build_adjacency(img);
  return gs::Registry(std::move(img));
}

}  // namespace

// The cone builder used to recurse once per link: a chain of 10^5 relations overflowed the call stack.
TEST_CASE("a chain of 100,000 relations builds its cone without deep recursion and evaluates to its length") {
  constexpr uint32_t n = 100'000;
  const gs::Registry reg = deep_chain(n);
  const std::map<uint32_t, double> root{{0, 0.0}};
  gs::Resolver resolver(reg, root, {});
  const auto build = gs::build_cone(reg, resolver, root, {n}, {0}, true);
  REQUIRE(build.missing.empty());
  REQUIRE(build.program.steps.size() == n);
  CHECK(build.program.steps.front().var == 1);  // post-order: the link next to the root first
  CHECK(build.program.steps.back().var == n);
  double out = -1, in = 0;
  gs::interpret(build.program).one(&in, &out);
  CHECK(out == double(n));
  const auto resolved = resolver.resolve(n);
  REQUIRE(resolved.number);
  CHECK(*resolved.number == double(n));
}
