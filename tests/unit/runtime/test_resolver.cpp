#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/resolver.h"
#include "runtime_support.h"

using namespace gs;
using gs::testing::id;
using gs::testing::mini;

namespace {

using Values = std::map<std::string, double>;

Resolution resolve(const std::string& target, const Values& assign, const std::map<std::string, std::string>& variants = {},
                   ResolveOptions opts = {}) {
  std::map<uint32_t, double> a;
  for (const auto& [n, x] : assign) a[id(n)] = x;
  std::map<uint32_t, std::string> v;
  for (const auto& [n, k] : variants) v[id(n)] = k;
  Resolver r(mini(), a, v, opts);
  return r.resolve(id(target));
}

const MissingInput* missing(const Resolution& r, const std::string& name) {
  for (const auto& m : r.missing)
    if (mini().var(m.var).name == name) return &m;
  return nullptr;
}

const Check* check(const std::vector<Check>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return &c;
  return nullptr;
}

double rel_error(double a, double b) {
  double scale = std::max(std::fabs(a), std::fabs(b));
  return scale == 0 ? 0 : std::fabs(a - b) / scale;
}

// A fixture number in base units: the fixture states units for inputs and targets; counts such as
// "racks" or "dimensionless" are not units of the model and need no conversion.
double fixture_base(const Registry& reg, const nlohmann::json& fx, const std::string& name, double value) {
  if (!fx["units"].contains(name)) return value;
  auto q = reg.units().parse(fx["units"][name].get<std::string>());
  return q ? value * q->scale : value;
}

nlohmann::json fixture_json() {
  std::ifstream in(std::string(GSTACK_DATA_DIR) + "/fixtures/dense_training_cost_fixture.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// The fixture's expected values, its override check and its pinned variables, on any model that
// carries the fixture's variable names.
void check_fixture(const Registry& reg) {
  nlohmann::json fx = fixture_json();
  Preset p = gs::testing::source_preset(reg, "dense_training_cost_fixture");
  CHECK(p.assignments.size() == fx["assignments"].size());
  for (const auto& [name, value] : fx["assignments"].items()) {
    uint32_t v = gs::testing::id(reg, name);
    REQUIRE(p.assignments.count(v));
    CHECK(rel_error(p.assignments.at(v), fixture_base(reg, fx, name, value.get<double>())) <= 1e-15);
  }
  Resolver resolver(reg, p.assignments, p.variants);
  for (const auto& [name, expected] : fx["expected"].items()) {
    Resolution r = resolver.resolve(gs::testing::id(reg, name));
    INFO(name);
    REQUIRE(r.number);
    CHECK(rel_error(*r.number, fixture_base(reg, fx, name, expected.get<double>())) <= 1e-12);
    CHECK(r.missing.empty());
    CHECK(r.violations() == 0);
  }
  // Intermediates come without units; they match in base units or in the variable's display unit.
  for (const auto& [name, expected] : fx["expected_intermediates_recomputed"].items()) {
    auto v = reg.find_var(name);
    if (!v) continue;  // the shipped model may structure intermediates differently
    Resolution r = resolver.resolve(*v);
    INFO(name);
    REQUIRE(r.number);
    double x = expected.get<double>();
    CHECK(std::min(rel_error(*r.number, x), rel_error(*r.number / reg.var(*v).unit_scale, x)) <= 1e-12);
  }
  std::vector<std::string> pinned;
  for (const auto& o : resolver.overrides()) pinned.push_back(reg.var(o.var).name);
  for (const auto& name : fx["assignments_that_pin_non_root_variables"]) {
    INFO(name.get<std::string>());
    CHECK(std::find(pinned.begin(), pinned.end(), name.get<std::string>()) != pinned.end());
  }
  for (const auto& oc : fx["override_checks"]) {
    auto a = p.assignments;
    for (const auto& [name, value] : oc["override"].items())
      a[gs::testing::id(reg, name)] = fixture_base(reg, fx, name, value.get<double>());
    Resolver over(reg, a, p.variants);
    for (const auto& [name, expected] : oc["expected"].items()) {
      Resolution r = over.resolve(gs::testing::id(reg, name));
      REQUIRE(r.number);
      CHECK(rel_error(*r.number, fixture_base(reg, fx, name, expected.get<double>())) <= oc["rel"].get<double>());
    }
  }
}

}  // namespace

TEST_CASE("resolver: the dense training cost fixture on the test model") { check_fixture(mini()); }

TEST_CASE("resolver: the dense training cost fixture on the shipped model") {
  if (!std::filesystem::exists(gs::testing::shipped_image())) {
    MESSAGE("model.gsimg is not built; skipped");
    return;
  }
  Registry reg = Registry::load(gs::testing::shipped_image());
  if (!reg.find_var("econ.cost.per_token")) {
    MESSAGE("the shipped model has no economics slice yet; skipped");
    return;
  }
  check_fixture(reg);
}

TEST_CASE("resolver: demo rack, and the same cone with one input missing") {
  auto full = resolve("cluster.rack.peak_flops", {{"cluster.rack.n_nodes", 9}, {"cluster.node.n_gpus", 8}, {"gpu.peak_flops", 15e15}});
  REQUIRE(full.number);
  CHECK(*full.number == doctest::Approx(1.08e18).epsilon(1e-12));
  std::vector<std::string> steps;
  for (const auto& s : full.steps) steps.push_back(mini().relation(s.relation).name);
  CHECK(steps == std::vector<std::string>{"fixture.node_peak_flops", "fixture.rack_peak_flops"});

  auto partial = resolve("cluster.node.peak_flops", {{"cluster.node.n_gpus", 8}});
  CHECK_FALSE(partial.number);
  REQUIRE(partial.missing.size() == 1);
  const MissingInput& m = partial.missing[0];
  CHECK(mini().var(m.var).name == "gpu.peak_flops");
  CHECK(m.category == "primitive-root");
  CHECK(m.family == "gpu");
  CHECK(m.dependents_count >= 3);
  // The formula is 8 * gpu.peak_flops: check it numerically, not by its printed form.
  Resolver r(mini(), {{id("cluster.node.n_gpus"), 8}}, {});
  Resolution again = r.resolve(id("cluster.node.peak_flops"));
  GiNaC::ex at = again.value.subs(r.symbols().of(id("gpu.peak_flops")) == 2);
  CHECK(sym::to_double(at) == 16.0);

  auto none = resolve("cluster.node.peak_flops", {});
  REQUIRE(none.missing.size() == 2);
  CHECK(missing(none, "cluster.node.n_gpus")->family == "cluster.node");
}

TEST_CASE("resolver: an unexpanded subtree is a symbolic boundary") {
  auto r = resolve("cluster.rack.peak_flops", {{"cluster.rack.n_nodes", 9}});
  REQUIRE(r.missing.size() == 1);
  CHECK(mini().var(r.missing[0].var).name == "cluster.node.peak_flops");
  CHECK(r.missing[0].category == "symbolic-boundary");
  CHECK(r.missing[0].definitions.size() == 1);
}

TEST_CASE("resolver: selection order and explanations") {
  ResolveOptions explain;
  explain.explain = true;
  // Identity beats an approximation.
  auto both = resolve("lab.both", {{"lab.a", 2}, {"lab.regime", 5}}, {}, explain);
  CHECK(*both.number == 3.0);
  CHECK(both.steps.back().reason.find("only identity") != std::string::npos);
  CHECK(both.validity.empty());  // only approximations that were used are checked

  // A lone approximation is used, and its validity is checked.
  auto apx = resolve("lab.apx", {{"lab.a", 2}, {"lab.regime", 5}}, {}, explain);
  CHECK(*apx.number == 6.0);
  CHECK(apx.steps.back().reason.find("approximation") != std::string::npos);
  REQUIRE(apx.validity.size() == 1);
  CHECK(apx.validity[0].status == CheckStatus::Satisfied);
  auto outside = resolve("lab.apx", {{"lab.a", 2}, {"lab.regime", 50}});
  CHECK(outside.validity[0].status == CheckStatus::Violated);
  CHECK(outside.violations() == 1);
  auto unknown = resolve("lab.apx", {{"lab.a", 2}});
  CHECK(unknown.validity[0].status == CheckStatus::Undetermined);
  CHECK(unknown.validity[0].missing == std::vector<uint32_t>{id("lab.regime")});

  // Variants need a selector; without one an approximation is the fallback.
  auto vf = resolve("lab.vf", {{"lab.a", 2}, {"lab.regime", 50}}, {}, explain);
  CHECK(*vf.number == 3.0);
  CHECK(vf.steps.back().reason.find("no variant is selected") != std::string::npos);
  auto exact = resolve("lab.vf", {{"lab.a", 2}}, {{"lab.vf", "exact"}}, explain);
  CHECK(*exact.number == 3.0);
  CHECK(exact.steps.back().reason.find("'exact'") != std::string::npos);

  auto twice = resolve("lab.x_user", {{"lab.a", 2}, {"lab.b", 1}}, {{"lab.x", "twice"}});
  CHECK(*twice.number == 5.0);
  auto family = resolve("lab.x_user", {{"lab.a", 2}, {"lab.b", 1}});
  const MissingInput* x = missing(family, "lab.x");
  REQUIRE(x);
  CHECK(x->category == "variant-family");
  CHECK(x->variant_keys == std::vector<std::string>{"plus", "twice"});
  CHECK(x->reason.find("variant selector required") != std::string::npos);

  auto amb = resolve("lab.amb", {{"lab.a", 2}, {"lab.regime", 5}});
  REQUIRE(amb.missing.size() == 1);
  CHECK(amb.missing[0].category == "ambiguous");
}

TEST_CASE("resolver: a declared fallback takes over where its approximation's validity fails or it cannot be evaluated") {
  // lab.fb: fb_first (a / regime, valid below 10) -> fb_second (a + b, below 100) -> fb_last (b).
  ResolveOptions explain;
  explain.explain = true;
  auto first = resolve("lab.fb", {{"lab.a", 2}, {"lab.b", 3}, {"lab.regime", 4}});
  CHECK(*first.number == doctest::Approx(0.5).epsilon(1e-15));
  CHECK(first.step_for(id("lab.fb"))->fallback_from == -1);
  CHECK(first.validity.size() == 1);

  auto second = resolve("lab.fb", {{"lab.a", 2}, {"lab.b", 3}, {"lab.regime", 50}}, {}, explain);
  CHECK(*second.number == 5.0);
  const Step* step = second.step_for(id("lab.fb"));
  REQUIRE(step);
  CHECK(mini().relation(step->relation).name == "lab.fb_second");
  CHECK(mini().relation(uint32_t(step->fallback_from)).name == "lab.fb_first");
  CHECK(step->reason == "fallback from lab.fb_first: its validity is violated");
  CHECK(second.violations() == 0);  // the approximation used, fb_second, holds; fb_first was not used

  auto last = resolve("lab.fb", {{"lab.a", 2}, {"lab.b", 3}, {"lab.regime", 500}});
  CHECK(*last.number == 3.0);
  CHECK(mini().relation(last.step_for(id("lab.fb"))->relation).name == "lab.fb_last");
  CHECK(mini().relation(uint32_t(last.step_for(id("lab.fb"))->fallback_from)).name == "lab.fb_first");

  // regime 0: fb_first is valid but divides by zero, so fb_second answers.
  auto zero = resolve("lab.fb", {{"lab.a", 2}, {"lab.b", 3}, {"lab.regime", 0}}, {}, explain);
  REQUIRE(zero.number);
  CHECK(*zero.number == 5.0);
  CHECK(zero.step_for(id("lab.fb"))->reason.find("cannot be evaluated") != std::string::npos);

  // A missing input is reported, never fallen back from.
  auto open = resolve("lab.fb", {{"lab.a", 2}, {"lab.b", 3}});
  CHECK(!open.number);
  REQUIRE(open.missing.size() == 1);
  CHECK(mini().var(open.missing[0].var).name == "lab.regime");
  CHECK(open.step_for(id("lab.fb"))->fallback_from == -1);

  // Three approximations define lab.fb, but the two fallbacks are never selected on their own.
  Resolver r(mini(), {}, {});
  CHECK(mini().relation(uint32_t(r.selection(id("lab.fb")).relation)).name == "lab.fb_first");
}

TEST_CASE("resolver: bad selectors and assignments are refused up front") {
  CHECK_THROWS_WITH_AS(resolve("lab.sum", {}, {{"lab.a", "dense"}}), doctest::Contains("no variant relations"), ResolveError);
  CHECK_THROWS_WITH_AS(resolve("lab.sum", {}, {{"lab.x", "twise"}}), doctest::Contains("did you mean 'twice'"), ResolveError);
  CHECK_THROWS_WITH_AS(resolve("lab.sum", {{"physics.planck", 1}}), doctest::Contains("universal constant"), ResolveError);
}

TEST_CASE("resolver: iterations, stochastic means, differential relations and piecewise") {
  auto root = resolve("lab.root", {{"lab.s", 2}, {"lab.n_iter", 6}});
  REQUIRE(root.number);
  CHECK(*root.number == doctest::Approx(std::sqrt(2.0)).epsilon(1e-12));
  auto too_many = resolve("lab.root", {{"lab.s", 2}, {"lab.n_iter", 100}});
  REQUIRE(too_many.missing.size() == 1);
  CHECK(too_many.missing[0].category == "unevaluable");
  CHECK(too_many.missing[0].reason.find("64") != std::string::npos);
  auto no_count = resolve("lab.root", {{"lab.s", 2}});
  REQUIRE(no_count.missing.size() == 1);
  CHECK(no_count.missing[0].reason.find("lab.n_iter") != std::string::npos);

  CHECK(*resolve("lab.ttf", {{"lab.rate", 0.5}}).number == 2.0);
  auto noise = resolve("lab.noise", {{"lab.a", 1}, {"lab.b", 2}});
  REQUIRE(noise.missing.size() == 1);
  CHECK(noise.missing[0].reason.find("differential or stochastic") != std::string::npos);
  auto temp = resolve("lab.temp", {{"lab.heat", 1}});
  REQUIRE(temp.missing.size() == 1);
  CHECK(temp.missing[0].category == "primitive-root");

  auto throttled = resolve("lab.throttle", {{"lab.p", 200}, {"lab.tdp", 100}});
  CHECK(throttled.value.is_equal(GiNaC::numeric(1, 2)));
  CHECK(*resolve("lab.throttle", {{"lab.p", 50}, {"lab.tdp", 100}}).number == 1.0);
  CHECK(*resolve("lab.clamped", {{"lab.a", -3}, {"lab.b", 2}}).number == 0.0);
  CHECK(*resolve("lab.clamped", {{"lab.a", 5}, {"lab.b", 2}}).number == 2.0);
  CHECK(*resolve("lab.buckets", {{"lab.count", 9}}).number == 5.0);
  CHECK(*resolve("lab.bits", {{"lab.count", 1024}}).number == doctest::Approx(10.0));
  auto photon = resolve("lab.photon_energy", {{"lab.wavelength", 500e-9}});
  CHECK(*photon.number == doctest::Approx(6.62607015e-34 * 299792458 / 500e-9).epsilon(1e-12));
}

TEST_CASE("resolver: constraints, helper resolution and declared domains") {
  auto bad = resolve("lab.sum", {{"lab.a", 2}, {"lab.b", 1}});
  const Check* c = check(bad.constraints, "lab.a_below_b");
  REQUIRE(c);
  CHECK(c->status == CheckStatus::Violated);
  CHECK(c->inputs.size() == 2);
  CHECK(c->text == "lab.a <= lab.b");
  CHECK(check(resolve("lab.sum", {{"lab.a", 1}, {"lab.b", 2}}).constraints, "lab.a_below_b")->status == CheckStatus::Satisfied);
  auto open = resolve("lab.sum", {{"lab.a", 1}});
  CHECK(check(open.constraints, "lab.a_below_b")->status == CheckStatus::Undetermined);

  // lab.period is not in the cone of lab.delay; the constraint resolves it from lab.freq.
  auto late = resolve("lab.delay", {{"lab.a", 3}, {"lab.speed", 1}, {"lab.freq", 0.5}});
  CHECK(check(late.constraints, "lab.timing")->status == CheckStatus::Violated);
  auto in_time = resolve("lab.delay", {{"lab.a", 3}, {"lab.speed", 1}, {"lab.freq", 0.25}});
  CHECK(check(in_time.constraints, "lab.timing")->status == CheckStatus::Satisfied);

  auto negative = resolve("lab.pos", {{"lab.a", 1}, {"lab.b", 2}});
  const Check* d = check(negative.constraints, "domain.lab.pos.positive");
  REQUIRE(d);
  CHECK(d->status == CheckStatus::Violated);
  CHECK(d->kind == "domain");
  CHECK(resolve("lab.frac", {{"lab.frac", 1.5}}).violations() == 1);
  CHECK(resolve("lab.frac", {{"lab.frac", 0.5}}).violations() == 0);
  CHECK(check(resolve("lab.whole", {{"lab.whole", 2.5}}).constraints, "domain.lab.whole.integer")->status == CheckStatus::Violated);
}

TEST_CASE("resolver: cycles and failed evaluations become named unresolved inputs") {
  auto loop = resolve("lab.c2", {{"lab.a", 1}}, {{"lab.c1", "loop"}});
  CHECK_FALSE(loop.number);
  REQUIRE_FALSE(loop.missing.empty());
  CHECK(loop.missing[0].category == "unevaluable");
  CHECK(loop.missing[0].reason.find("cycle") != std::string::npos);
  CHECK(*resolve("lab.c2", {{"lab.a", 1}}, {{"lab.c1", "plain"}}).number == 2.0);

  auto zero = resolve("lab.period", {{"lab.freq", 0}});
  REQUIRE(zero.missing.size() == 1);
  CHECK(zero.missing[0].category == "unevaluable");
  CHECK(zero.missing[0].reason.find("division by zero") != std::string::npos);
}

TEST_CASE("resolver: overrides are reported and can be checked against their relation") {
  ResolveOptions opts;
  opts.check_overrides = true;
  Values base{{"gpu.power.total", 500}, {"gpu.tdp", 1000}, {"cluster.node.n_gpus", 1}, {"cluster.node.cpu_power", 0},
              {"cluster.node.ram_power", 0}, {"cluster.node.nic_power", 0}, {"cluster.node.storage_power", 0},
              {"cluster.node.misc_power", 0}};
  Values agree = base;
  agree["gpu.power.utilization"] = 0.5;
  auto ok = resolve("cluster.node.power", agree, {}, opts);
  CHECK(*ok.number == 500.0);
  auto o = std::find_if(ok.overrides.begin(), ok.overrides.end(), [](const Override& x) { return mini().var(x.var).name == "gpu.power.total"; });
  REQUIRE(o != ok.overrides.end());
  CHECK(mini().relation(uint32_t(o->relation)).name == "fixture.power_total");
  CHECK(o->checked);
  CHECK(o->status == CheckStatus::Satisfied);

  Values disagree = base;
  disagree["gpu.power.utilization"] = 0.4;
  auto bad = resolve("cluster.node.power", disagree, {}, opts);
  o = std::find_if(bad.overrides.begin(), bad.overrides.end(), [](const Override& x) { return mini().var(x.var).name == "gpu.power.total"; });
  CHECK(o->status == CheckStatus::Violated);
  CHECK(*o->relation_value == doctest::Approx(400.0));
  CHECK(o->relative_difference == doctest::Approx(0.2));

  auto unchecked = resolve("cluster.node.power", base, {}, opts);
  o = std::find_if(unchecked.overrides.begin(), unchecked.overrides.end(), [](const Override& x) { return mini().var(x.var).name == "gpu.power.total"; });
  CHECK(o->status == CheckStatus::Undetermined);
  CHECK(o->missing == std::vector<uint32_t>{id("gpu.power.utilization")});

  auto plain = resolve("cluster.node.power", agree);
  CHECK_FALSE(plain.overrides.empty());
  CHECK_FALSE(plain.overrides[0].checked);
}

TEST_CASE("resolver: family buckets come from dotted names") {
  CHECK(family_of("cluster.node.n_gpus") == "cluster.node");
  CHECK(family_of("gpu.peak_flops") == "gpu");
  CHECK(family_of("econ.power.capacity_charge_kw_month") == "econ.power");
  CHECK(family_of("solo") == "solo");
  CHECK(family_of("") == "unknown");
}
