#include "runtime/analysis/influence.h"

#include <algorithm>
#include <cmath>

#include "runtime/analysis/scenario.h"
#include "runtime/resolver.h"
#include "runtime/symbolic.h"

namespace gs {

using GiNaC::ex;

namespace {

// Replaces each non-smooth function by the piece that is active at `point`, so that GiNaC's diff
// gives the one-sided derivative a user would expect (min(a, b) with a < b differentiates as a).
struct ActiveBranch : GiNaC::map_function {
  const GiNaC::exmap& point;
  explicit ActiveBranch(const GiNaC::exmap& p) : point(p) {}

  ex operator()(const ex& e) override {
    if (GiNaC::is_a<GiNaC::function>(e)) {
      const std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
      if (name == "if") {
        if (auto c = sym::decide(e.op(0).subs(point))) return (*this)(*c ? e.op(1) : e.op(2));
      } else if (name == "min" || name == "max") {
        auto a = sym::to_double(e.op(0).subs(point)), b = sym::to_double(e.op(1).subs(point));
        if (a && b) return (*this)((name == "min" ? *a <= *b : *a >= *b) ? e.op(0) : e.op(1));
      } else if (name == "abs") {
        if (auto a = sym::to_double(e.op(0).subs(point))) return *a >= 0 ? (*this)(e.op(0)) : -(*this)(e.op(0));
      } else if (name == "floor" || name == "ceil") {
        // Piecewise constant: its derivative is zero wherever it exists.
        ex v = e.subs(point);
        if (!sym::has_symbols(v)) return v;
      }
    }
    return e.map(*this);
  }
};

class Differentiator {
 public:
  Differentiator(const Registry& reg, Resolver& resolver, const std::map<uint32_t, GiNaC::ex>& values)
      : reg_(reg), resolver_(resolver), values_(values) {}

  size_t numeric_partials = 0;

  // d relation / d dep at the point for each value dependency (nullopt: not a number, e.g. because
  // the point itself still holds unknowns).
  std::vector<std::pair<uint32_t, std::optional<double>>> partials(uint32_t relation) {
    const Relation& rel = reg_.relation(relation);
    std::vector<std::pair<uint32_t, std::optional<double>>> out;
    std::vector<uint32_t> deps;
    for (uint32_t d : resolver_.value_deps(relation))
      if (!reg_.var(d).is_constant) deps.push_back(d);
    if (deps.empty()) return out;

    GiNaC::exmap point;
    for (uint32_t d : deps)
      if (auto it = values_.find(d); it != values_.end()) point[resolver_.symbols().of(d)] = it->second;

    std::optional<ex> shape;  // the relation with its inputs as symbols, non-smooth parts resolved
    if (rel.kind != Kind::Iterative) {
      try {
        ex e = sym::build(rel.rhs, constants_only(), resolver_.symbols()).value;
        ActiveBranch active(point);
        shape = active(e);
      } catch (const std::exception&) {
        shape.reset();
      }
    }
    for (uint32_t d : deps) {
      std::optional<double> p;
      if (shape) {
        try {
          const ex& s = resolver_.symbols().of(d);
          p = sym::to_double(shape->diff(GiNaC::ex_to<GiNaC::symbol>(s)).subs(point));
        } catch (const std::exception&) {
          p.reset();
        }
      }
      if (!p) {
        p = central_difference(rel, d);
        if (p) ++numeric_partials;
      }
      out.emplace_back(d, p);
    }
    return out;
  }

 private:
  const Registry& reg_;
  Resolver& resolver_;
  const std::map<uint32_t, GiNaC::ex>& values_;

  sym::VarValue constants_only() const {
    return [this](uint32_t w) -> std::optional<ex> {
      if (reg_.var(w).is_constant) return sym::number(reg_.var(w).value);
      return std::nullopt;
    };
  }

  // The relation's value with `var` shifted by `delta`, every other input at the point.
  std::optional<double> evaluate(const Relation& rel, uint32_t var, const ex& delta) {
    const sym::VarValue at = [&](uint32_t w) -> std::optional<ex> {
      if (reg_.var(w).is_constant) return sym::number(reg_.var(w).value);
      auto it = values_.find(w);
      if (it == values_.end()) return std::nullopt;
      return w == var ? it->second + delta : it->second;
    };
    sym::Symbols& symbols = resolver_.symbols();
    if (rel.kind != Kind::Iterative) return sym::to_double(sym::build(rel.rhs, at, symbols).value);
    auto count = sym::to_double(sym::build(rel.iterations, at, symbols).value);
    if (!count || *count < 0 || *count > 4096 || *count != std::floor(*count)) return std::nullopt;
    ex x = sym::build(rel.initial, at, symbols).value;
    for (int i = 0; i < int(*count); ++i) x = sym::build(rel.rhs, at, symbols, {x}).value;
    return sym::to_double(x);
  }

  // Arithmetic on the exact rationals the resolver uses, so the step can be small without rounding
  // noise; a relative step of 1e-7 leaves a truncation error near 1e-14 for smooth relations.
  std::optional<double> central_difference(const Relation& rel, uint32_t var) {
    auto it = values_.find(var);
    if (it == values_.end()) return std::nullopt;
    auto x = sym::to_double(it->second);
    if (!x) return std::nullopt;
    const double h = *x != 0 ? 1e-7 * std::fabs(*x) : 1e-7;
    try {
      const ex step = sym::number(h);
      auto up = evaluate(rel, var, step), down = evaluate(rel, var, -step);
      if (!up || !down) return std::nullopt;
      return (*up - *down) / (2 * h);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
};

bool ranks_before(const Registry& reg, const InputInfluence& a, const InputInfluence& b) {
  const bool am = a.status == "missing", bm = b.status == "missing";
  if (am != bm) return am;
  if (!am) {
    const double ea = a.elasticity ? std::fabs(*a.elasticity) : -1, eb = b.elasticity ? std::fabs(*b.elasticity) : -1;
    if (ea != eb) return ea > eb;
  }
  if (a.dependents != b.dependents) return a.dependents > b.dependents;
  return reg.var(a.var).name < reg.var(b.var).name;
}

}  // namespace

double assign_variance_shares(std::vector<InputInfluence>& inputs) {
  double total = 0;
  for (const auto& in : inputs)
    if (in.distribution && in.derivative) total += *in.derivative * *in.derivative * distribution_variance(*in.distribution);
  for (auto& in : inputs) {
    if (!in.distribution || !in.derivative) continue;
    const double c = *in.derivative * *in.derivative * distribution_variance(*in.distribution);
    in.variance_share = total > 0 ? c / total : 0.0;
  }
  return total;
}

InfluenceResult influence(const Registry& reg, const std::map<uint32_t, double>& assignments,
                          const std::map<uint32_t, std::string>& variants, uint32_t target, const Graph& graph,
                          const std::map<uint32_t, Distribution>& uncertain) {
  Resolver resolver(reg, assignments, variants);
  Resolution res = resolver.resolve(target);
  InfluenceResult out;
  out.target = target;
  out.value = res.number;
  if (!res.number) out.formula = sym::to_string(res.value);
  out.steps = res.steps.size();

  // Reverse accumulation: adjoint[v] = dy/dv. NaN marks a derivative that is not a number.
  std::map<uint32_t, double> adjoint;
  adjoint[target] = 1;
  Differentiator diff(reg, resolver, res.values);
  for (auto s = res.steps.rbegin(); s != res.steps.rend(); ++s) {
    auto a = adjoint.find(s->var);
    if (a == adjoint.end() || a->second == 0) continue;
    const double weight = a->second;
    for (const auto& [d, p] : diff.partials(s->relation)) {
      if (p && *p == 0) continue;  // no path through here, whatever the weight
      adjoint[d] += p ? weight * *p : NAN;
    }
  }
  out.numeric_partials = diff.numeric_partials;

  for (uint32_t v : res.assigned) {
    if (reg.var(v).is_constant) continue;
    InputInfluence in;
    in.var = v;
    const bool derived = reg.kind(v) == VarKind::Derived;
    in.status = derived ? "override" : "assigned";
    in.category = derived ? "override" : "primitive-root";
    in.value = assignments.at(v);
    auto a = adjoint.find(v);
    const double d = a == adjoint.end() ? 0.0 : a->second;
    if (std::isfinite(d)) in.derivative = d;
    if (in.derivative && out.value && *out.value != 0) in.elasticity = *in.derivative * *in.value / *out.value;
    if (auto u = uncertain.find(v); u != uncertain.end()) in.distribution = u->second;
    in.dependents = graph.dependent_count(v);
    out.inputs.push_back(std::move(in));
  }
  for (const auto& m : res.missing) {
    InputInfluence in;
    in.var = m.var, in.status = "missing", in.category = m.category, in.dependents = m.dependents_count;
    if (auto u = uncertain.find(m.var); u != uncertain.end()) in.distribution = u->second;
    out.inputs.push_back(std::move(in));
    ++out.missing;
  }
  const double variance = assign_variance_shares(out.inputs);
  if (std::any_of(out.inputs.begin(), out.inputs.end(), [](const InputInfluence& in) { return in.variance_share.has_value(); }))
    out.linear_sd = std::sqrt(variance);
  for (const auto& [v, d] : uncertain)
    if (std::none_of(out.inputs.begin(), out.inputs.end(), [&](const InputInfluence& in) { return in.var == v; }))
      out.uncertain_outside.push_back(v);
  std::stable_sort(out.inputs.begin(), out.inputs.end(),
                   [&](const InputInfluence& a, const InputInfluence& b) { return ranks_before(reg, a, b); });
  return out;
}

}  // namespace gs
