#include "runtime/resolver.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "image/suggest.h"
#include "runtime/system_solver.h"

namespace gs {

namespace {

// Iterative relations are unfolded symbolically; beyond this many steps the expression (and the time)
// would grow without telling the user more than "not converged in closed form".
constexpr double kMaxIterations = 64;

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s;
}

const char* op_text(Op op) {
  switch (op) {
    case Op::Lt: return " < ";
    case Op::Le: return " <= ";
    case Op::Gt: return " > ";
    case Op::Ge: return " >= ";
    case Op::Eq: return " == ";
    default: return " != ";
  }
}

}  // namespace

double relative_difference(double a, double b) {
  double scale = std::max(std::fabs(a), std::fabs(b));
  return scale == 0 ? 0 : std::fabs(a - b) / scale;
}

const char* check_status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::Satisfied: return "satisfied";
    case CheckStatus::Violated: return "violated";
    case CheckStatus::Undetermined: return "undetermined";
  }
  return "?";
}

const Step* Resolution::step_for(uint32_t var) const {
  for (const auto& s : steps)
    if (s.var == var) return &s;
  return nullptr;
}

size_t count_violations(const std::vector<Check>& constraints, const std::vector<Check>& validity) {
  size_t n = 0;
  for (const auto* list : {&constraints, &validity})
    for (const auto& c : *list) n += c.status == CheckStatus::Violated;
  return n;
}

size_t Resolution::violations() const { return count_violations(constraints, validity); }

std::string family_of(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    if (dot > start) parts.push_back(name.substr(start, dot - start));
    start = dot + 1;
  }
  if (parts.empty()) return "unknown";
  return parts.size() >= 3 ? parts[0] + "." + parts[1] : parts[0];
}

std::vector<uint32_t> relation_value_deps(const Relation& rel) {
  std::vector<uint32_t> d = expr_variables(rel.rhs);
  if (rel.kind == Kind::Iterative)
    for (const Expr* e : {&rel.initial, &rel.iterations})
      for (uint32_t v : expr_variables(*e)) d.push_back(v);
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  return d;
}

std::string variant_selector_error(const Registry& reg, uint32_t var, const std::string& key) {
  const std::string& name = reg.var(var).name;
  std::vector<std::string> keys;
  for (uint32_t r : reg.definitions(var))
    if (reg.relation(r).role == Role::Variant) keys.push_back(reg.relation(r).variant_key);
  if (keys.empty()) return "'" + name + "' has no variant relations, so variant '" + key + "' cannot be selected";
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return "";
  std::string hint = did_you_mean(key, keys);
  return "'" + name + "' has no variant '" + key + "'; its variants are " + join(keys) + (hint.empty() ? "" : "; " + hint);
}

Resolver::Resolver(const Registry& reg, std::map<uint32_t, double> assignments, std::map<uint32_t, std::string> variants,
                   ResolveOptions options)
    : reg_(reg),
      assignments_(std::move(assignments)),
      variants_(std::move(variants)),
      options_(options),
      symbols_(&reg.var_names()),
      selections_(reg.var_count()),
      value_deps_(reg.relation_count()),
      potential_state_(reg.var_count(), 0),
      potentials_(reg.var_count()) {
  for (const auto& [v, x] : assignments_) {
    const Variable& var = reg_.var(v);
    if (var.is_constant) throw ResolveError("'" + var.name + "' is a universal constant and cannot be assigned");
    if (!std::isfinite(x)) throw ResolveError("the value assigned to '" + var.name + "' is not a finite number");
  }
  // Selectors are checked even when the target never needs them, so a typo in a scenario is caught.
  for (const auto& [v, key] : variants_)
    if (auto error = variant_selector_error(reg_, v, key); !error.empty()) throw ResolveError(error);
}

const Resolver::Selection& Resolver::selection(uint32_t var) {
  auto& slot = selections_[var];
  if (slot) return *slot;
  std::vector<uint32_t> identities, variants, approximations, means;
  bool unsolved_only = false;  // defined only by relations the resolver does not solve
  for (uint32_t r : reg_.definitions(var)) {
    const Relation& rel = reg_.relation(r);
    switch (rel.role) {
      case Role::Identity: identities.push_back(r); break;
      case Role::Variant: variants.push_back(r); break;
      case Role::Approximation:
        if (!reg_.is_fallback(r)) approximations.push_back(r);  // a declared fallback is reached only through its approximation
        break;
      case Role::Stochastic:
        if (rel.rhs.empty()) unsolved_only = true;
        else means.push_back(r);
        break;
      case Role::Differential: unsolved_only = true; break;
      case Role::Constraint: break;
    }
  }
  Selection s;
  auto pick = [&](uint32_t r, std::string why) { s.relation = int32_t(r), s.reason = std::move(why); };
  auto ambiguous = [&](size_t n, const char* what) {
    s.category = "ambiguous";
    s.reason = std::to_string(n) + " " + what + " define it and none is preferred";
  };
  auto selector = variants_.find(var);
  if (identities.size() == 1) {
    pick(identities[0], "the only identity defining it");
  } else if (identities.size() > 1) {
    ambiguous(identities.size(), "identities");
  } else if (selector != variants_.end() && !variants.empty()) {
    for (uint32_t r : variants)
      if (reg_.relation(r).variant_key == selector->second) pick(r, "variant '" + selector->second + "' named by the selector");
  } else if (approximations.size() == 1) {
    pick(approximations[0], variants.empty() ? "approximation: no identity defines it"
                                             : "approximation: no identity defines it and no variant is selected");
  } else if (approximations.size() > 1) {
    ambiguous(approximations.size(), "approximations");
  } else if (!variants.empty()) {
    std::vector<std::string> keys;
    for (uint32_t r : variants) keys.push_back(reg_.relation(r).variant_key);
    s.category = "variant-family";
    s.reason = "variant selector required (one of " + join(keys) + ")";
  } else if (means.size() == 1) {
    pick(means[0], "mean of its stochastic relation: nothing else defines it");
  } else if (means.size() > 1) {
    ambiguous(means.size(), "stochastic relations");
  } else {
    s.category = "primitive-root";
    s.reason = unsolved_only ? "defined only by a differential or stochastic relation, which the resolver does not solve; assign it"
                             : "root input; assign it";
  }
  slot = std::move(s);
  return *slot;
}

const std::vector<uint32_t>& Resolver::value_deps(uint32_t relation) {
  auto& slot = value_deps_[relation];
  if (!slot) slot = relation_value_deps(reg_.relation(relation));
  return *slot;
}

// Whether expanding a variable can help: it reaches an assignment below, or everything below it is
// computable (constants, relations without inputs). A subtree that does neither would only rename the
// same unknowns, so its top variable is left as a symbol instead.
Resolver::Potential Resolver::potential(uint32_t root) {
  // Depth-first over the selected relations with an explicit stack: a chain of tens of thousands of
  // relations must not exhaust the call stack.
  auto settled = [&](uint32_t v) -> std::optional<Potential> {
    if (assignments_.count(v) || solved_.count(v)) return Potential{true, true};
    if (reg_.var(v).is_constant) return Potential{false, true};
    if (potential_state_[v] == 1) return Potential{false, false};  // on a cycle of selected relations
    if (potential_state_[v] == 2) return potentials_[v];
    return std::nullopt;
  };
  auto combine = [](Potential& into, const Potential& c) {
    into.reaches_assignment = into.reaches_assignment || c.reaches_assignment;
    into.resolvable = into.resolvable && c.resolvable;
  };
  if (auto p = settled(root)) return *p;
  struct Frame {
    uint32_t var;
    const std::vector<uint32_t>* deps;  // null: no selected relation
    size_t next;
    Potential p;
  };
  std::vector<Frame> stack;
  auto enter = [&](uint32_t v) {
    Frame f{v, nullptr, 0, {}};
    const Selection& s = selection(v);
    if (s.relation >= 0) {
      potential_state_[v] = 1;
      f.p.resolvable = true;
      f.deps = &value_deps(uint32_t(s.relation));
    }
    stack.push_back(f);
  };
  enter(root);
  Potential result;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.deps && top.next < top.deps->size()) {
      const uint32_t d = (*top.deps)[top.next++];
      if (auto c = settled(d)) combine(top.p, *c);
      else enter(d);  // invalidates `top`
      continue;
    }
    potential_state_[top.var] = 2;
    potentials_[top.var] = top.p;
    const Potential done = top.p;
    stack.pop_back();
    if (stack.empty()) result = done;
    else combine(stack.back().p, done);
  }
  return result;
}

std::optional<GiNaC::ex> Resolver::known(uint32_t var) {
  if (auto it = values_.find(var); it != values_.end()) return it->second;
  const Variable& v = reg_.var(var);
  if (!v.is_constant) return std::nullopt;
  return values_.emplace(var, sym::number(v.value)).first->second;
}

void Resolver::collect_cone(uint32_t target, std::vector<uint8_t>& in_cone) {
  std::vector<uint32_t> stack{target};
  while (!stack.empty()) {
    uint32_t v = stack.back();
    stack.pop_back();
    if (in_cone[v]) continue;
    in_cone[v] = 1;
    if (known(v)) continue;
    const Selection& s = selection(v);
    if (s.relation < 0) continue;
    for (uint32_t d : value_deps(uint32_t(s.relation))) {
      if (in_cone[d]) continue;
      Potential p = potential(d);
      if (p.reaches_assignment || p.resolvable) stack.push_back(d);
    }
  }
}

void Resolver::evaluate_cone(uint32_t target, std::vector<Step>* steps, std::vector<uint8_t>* cone_out) {
  const size_t n = reg_.var_count();
  std::vector<uint8_t> in_cone(n, 0);
  collect_cone(target, in_cone);
  // Kahn's algorithm over the cone members still to compute.
  std::vector<uint8_t> member(n, 0);
  std::vector<uint32_t> members;
  for (uint32_t v = 0; v < n; ++v)
    if (in_cone[v] && !known(v) && selection(v).relation >= 0) member[v] = 1, members.push_back(v);
  std::map<uint32_t, std::vector<uint32_t>> readers;
  std::map<uint32_t, size_t> indegree;
  std::vector<uint32_t> ready;
  for (uint32_t v : members) {
    size_t k = 0;
    for (uint32_t d : value_deps(uint32_t(selection(v).relation)))
      if (member[d]) readers[d].push_back(v), ++k;
    indegree[v] = k;
  }
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (indegree[*it] == 0) ready.push_back(*it);  // popped from the back: lowest id first
  while (!ready.empty()) {
    uint32_t v = ready.back();
    ready.pop_back();
    auto release = [&] {
      for (uint32_t w : readers[v])
        if (--indegree[w] == 0) ready.push_back(w);
    };
    // A fallback's inputs are computed ahead of their turn (below); they are not computed twice.
    if (values_.count(v)) {
      release();
      continue;
    }
    const Selection& s = selection(v);
    uint32_t relation = uint32_t(s.relation);
    std::string reason = options_.explain ? s.reason : "";
    int32_t fallback_from = -1;
    // Variables whose fallback is being prepared on this thread: if the alternative's inputs lead back
    // to the same variable, that inner evaluation keeps the original relation instead of recursing.
    thread_local std::set<std::pair<const Resolver*, uint32_t>> preparing;
    const bool may_switch = !preparing.count({this, v});
    std::set<uint32_t> tried{relation};
    // Computes variables ahead of their turn, in the trace: the inputs of an alternative the original
    // did not read, or the variables of a validity that decides whether to switch.
    auto prepare = [&](const std::vector<uint32_t>& vars) {
      preparing.insert({this, v});
      try {
        for (uint32_t d : vars)
          if (!known(d)) evaluate_cone(d, steps, nullptr);
      } catch (...) {
        preparing.erase({this, v});
        throw;
      }
      preparing.erase({this, v});
    };
    auto switch_to = [&](uint32_t alt, const std::string& why) {
      if (fallback_from < 0) fallback_from = int32_t(relation);
      relation = alt;
      if (options_.explain) reason = "fallback from " + reg_.relation(uint32_t(fallback_from)).name + ": " + why;
      prepare(value_deps(relation));
    };
    while (true) {
      if (may_switch) {
        // A declared fallback is decided on the validity's own variables, computed here if need be.
        if (reg_.relation(relation).fallback >= 0) prepare(expr_variables(reg_.relation(relation).validity));
        for (int32_t alt; (alt = fallback_for(v, relation)) >= 0 && tried.insert(uint32_t(alt)).second;) {
          switch_to(uint32_t(alt), "its validity is violated");
          if (reg_.relation(relation).fallback >= 0) prepare(expr_variables(reg_.relation(relation).validity));
        }
        if (values_.count(v)) break;  // a validity that reads this variable's dependents computed it already
      }
      try {
        GiNaC::ex x = evaluate_relation(relation);
        // An undefined operation that no piecewise guarded (1/0) fails this variable, as an error would.
        if (sym::is_undefined(x)) throw std::domain_error(sym::undefined_reason(x));
        values_[v] = x;
        if (steps) steps->push_back({v, relation, x, reason, fallback_from, {}});
      } catch (const std::exception& e) {
        // A declared fallback also stands in where the approximation cannot be evaluated at all.
        const int32_t alt = reg_.relation(relation).fallback;
        if (may_switch && alt >= 0 && tried.insert(uint32_t(alt)).second) {
          switch_to(uint32_t(alt), std::string("it cannot be evaluated (") + e.what() + ")");
          continue;
        }
        failures_[v] = e.what();
      }
      break;
    }
    release();
  }
  for (uint32_t v : members)
    if (indegree[v] > 0) failures_[v] = "it is caught in a cycle of selected relations";
  if (cone_out) *cone_out = std::move(in_cone);
}

GiNaC::ex Resolver::evaluate_relation(uint32_t relation) {
  const Relation& rel = reg_.relation(relation);
  const sym::VarValue lookup = [this](uint32_t w) { return known(w); };
  if (rel.kind != Kind::Iterative) return sym::build(rel.rhs, lookup, symbols_).value;
  const GiNaC::ex count_value = sym::build(rel.iterations, lookup, symbols_).value;
  auto count = sym::to_double(count_value);
  if (!count) {
    std::string unknown;
    for (uint32_t v : symbols_.free_vars(count_value)) unknown += (unknown.empty() ? "" : ", ") + reg_.var(v).name;
    throw std::runtime_error("its iteration count is not known" + (unknown.empty() ? std::string() : " (it needs " + unknown + ")"));
  }
  if (*count != std::floor(*count) || *count < 0 || *count > kMaxIterations)
    throw std::runtime_error(fmt::format("its iteration count {:g} is not a whole number from 0 to {:g}", *count, kMaxIterations));
  GiNaC::ex x = sym::build(rel.initial, lookup, symbols_).value;
  for (int i = 0; i < int(*count); ++i) x = sym::build(rel.rhs, lookup, symbols_, {x}).value;
  return x;
}

int32_t Resolver::fallback_for(uint32_t var, uint32_t relation) {
  const Relation& rel = reg_.relation(relation);
  if (rel.role != Role::Approximation || rel.validity.empty()) return -1;
  if (rel.fallback < 0 && !options_.fallback_on_violated_validity) return -1;
  // Only a definite violation under the values known now switches; an undecided condition does not.
  const sym::VarValue lookup = [this](uint32_t w) { return known(w); };
  std::optional<bool> holds;
  try {
    holds = sym::decide(sym::build(rel.validity, lookup, symbols_).value);
  } catch (const std::exception&) {
    return -1;
  }
  if (!holds || *holds) return -1;
  if (rel.fallback >= 0) return rel.fallback;  // declared in the model: always used
  if (!options_.fallback_on_violated_validity) return -1;
  std::vector<uint32_t> identities, approximations, variants, others;
  for (uint32_t r : reg_.definitions(var)) {
    if (r == relation) continue;
    switch (reg_.relation(r).role) {
      case Role::Identity: identities.push_back(r); break;
      case Role::Approximation: approximations.push_back(r); break;
      case Role::Variant: variants.push_back(r); break;
      default: continue;
    }
    others.push_back(r);
  }
  for (const auto* pool : {&identities, &approximations, &variants, &others})
    if (pool->size() == 1) return int32_t(pool->front());
  return -1;  // no single alternative: keep the approximation and report its violated validity
}

// The strongly connected group of `var` in the graph of selected relations, when it has 2 to
// kMaxSystemSize members; empty otherwise.
std::vector<uint32_t> Resolver::system_of(uint32_t var) {
  auto reach = [&](uint32_t from) {
    std::set<uint32_t> seen;
    std::vector<uint32_t> stack{from};
    while (!stack.empty() && seen.size() <= 64) {
      uint32_t v = stack.back();
      stack.pop_back();
      if (assignments_.count(v) || reg_.var(v).is_constant) continue;
      const Selection& s = selection(v);
      if (s.relation < 0) continue;
      for (uint32_t d : value_deps(uint32_t(s.relation)))
        if (seen.insert(d).second) stack.push_back(d);
    }
    return seen;
  };
  const std::set<uint32_t> below = reach(var);
  if (!below.count(var)) return {};
  std::vector<uint32_t> members;
  for (uint32_t w : below)
    if (w == var || reach(w).count(var)) members.push_back(w);
  if (members.size() < 2 || members.size() > kMaxSystemSize) return {};
  return members;
}

Resolver::SystemValues Resolver::solve_system(const std::vector<uint32_t>& members) {
  SystemValues out;
  const std::set<uint32_t> in_system(members.begin(), members.end());
  const sym::VarValue lookup = [&](uint32_t w) -> std::optional<GiNaC::ex> {
    if (in_system.count(w)) return std::nullopt;
    return known(w);
  };
  std::vector<GiNaC::ex> residuals, unknowns;
  NumericSystem numeric;
  for (uint32_t m : members) {
    const Relation& rel = reg_.relation(uint32_t(selection(m).relation));
    if (rel.kind == Kind::Iterative) return out.failure = rel.name + " is an iteration, which is not solved simultaneously", out;
    try {
      residuals.push_back(symbols_.of(m) - sym::build(rel.rhs, lookup, symbols_).value);
    } catch (const std::exception& e) {
      return out.failure = rel.name + " cannot be evaluated: " + e.what(), out;
    }
    unknowns.push_back(symbols_.of(m));
    numeric.names.push_back(reg_.var(m).name);
    const Sign sign = reg_.var(m).assume.sign;
    numeric.sign.push_back(sign == Sign::Positive || sign == Sign::Nonnegative ? 1
                           : sign == Sign::Negative || sign == Sign::Nonpositive ? -1
                                                                                 : 0);
  }
  // Why a candidate value breaks a member's declared domain (sign, integer, binary, range), or "".
  numeric.domain_violation = [&](size_t i, double x) -> std::string {
    std::vector<Check> checks;
    append_domain_checks(reg_.var(members[i]), members[i], x, std::fabs(x - std::round(x)) <= 1e-9 * std::max(1.0, std::fabs(x)), checks);
    for (const Check& c : checks)
      if (c.status == CheckStatus::Violated) return c.text;
    return "";
  };
  // Linear when no residual's derivative still reads an unknown: then GiNaC solves it exactly.
  bool linear = true;
  for (const auto& r : residuals)
    for (const auto& u : unknowns) {
      const GiNaC::ex d = r.diff(GiNaC::ex_to<GiNaC::symbol>(u));
      for (const auto& w : unknowns) linear = linear && !d.has(w);
    }
  if (linear) {
    GiNaC::lst equations, names;
    for (size_t i = 0; i < residuals.size(); ++i) equations.append(residuals[i] == 0), names.append(unknowns[i]);
    GiNaC::ex solution;
    try {
      solution = GiNaC::lsolve(equations, names);
    } catch (const std::exception& e) {
      return out.failure = std::string("the linear solver failed: ") + e.what(), out;
    }
    if (solution.nops() != members.size())
      return out.failure = "the linear system is singular (its relations are dependent or contradict each other)", out;
    for (size_t i = 0; i < members.size(); ++i) {
      GiNaC::ex x = solution.op(i).rhs().evalf();
      auto xv = sym::to_double(x);
      if (!xv) return out.failure = "the linear solution is not a real number", out;
      if (std::string why = numeric.domain_violation(i, *xv); !why.empty())
        return out.failure = fmt::format("the solution {} = {:.6g} breaks a declared domain: {}", numeric.names[i], *xv, why), out;
      out.values[members[i]] = x;
    }
    return out;
  }
  numeric.residuals = residuals, numeric.unknowns = unknowns;
  for (uint32_t m : members)
    for (uint32_t d : value_deps(uint32_t(selection(m).relation)))
      if (!in_system.count(d))
        if (auto x = known(d); x && sym::to_double(*x)) numeric.scales.push_back(*sym::to_double(*x));
  NumericRoot root = solve_numerically(numeric);
  if (!root.solved) return out.failure = root.failure, out;
  for (size_t i = 0; i < members.size(); ++i) out.values[members[i]] = sym::number(root.values[i]);
  out.iterations = root.iterations;
  return out;
}

std::vector<Step> Resolver::solve_systems(const std::vector<uint32_t>& candidates) {
  std::vector<Step> steps;
  std::set<uint32_t> tried;
  for (uint32_t start : candidates) {
    if (tried.count(start) || solved_.count(start)) continue;
    const std::vector<uint32_t> members = system_of(start);
    tried.insert(start);
    if (members.empty()) continue;
    tried.insert(members.begin(), members.end());
    const std::set<uint32_t> in_system(members.begin(), members.end());
    auto unsolved = [&](const std::string& why) {
      for (uint32_t m : members) {
        std::string peers;
        for (uint32_t p : members)
          if (p != m) peers += (peers.empty() ? "" : ", ") + reg_.var(p).name;
        unsolved_[m] = "its simultaneous system with " + peers + " was not solved: " + why;
      }
    };
    // Every input from outside the system must be a known number: a system is never solved in symbols.
    std::vector<uint32_t> open;
    for (uint32_t m : members)
      for (uint32_t d : value_deps(uint32_t(selection(m).relation))) {
        if (in_system.count(d)) continue;
        if (!known(d)) evaluate_cone(d, nullptr, nullptr);
        auto x = known(d);
        if ((!x || !sym::to_double(*x)) && std::find(open.begin(), open.end(), d) == open.end()) open.push_back(d);
      }
    if (!open.empty()) {
      std::vector<std::string> names;
      for (uint32_t d : open) names.push_back(reg_.var(d).name);
      std::sort(names.begin(), names.end());
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      unsolved(list + (names.size() == 1 ? " has" : " have") + " no numeric value (a system is solved only when every input from outside it is a number)");
      continue;
    }
    SystemValues found = solve_system(members);
    if (!found.failure.empty()) {
      unsolved(found.failure);
      continue;
    }
    for (uint32_t m : members) {
      solved_[m] = found.values[m];
      Step st{m, uint32_t(selection(m).relation), found.values[m], "", -1, {}, found.iterations};
      for (uint32_t p : members)
        if (p != m) st.system_peers.push_back(p);
      if (options_.explain) {
        std::string peers;
        for (uint32_t p : st.system_peers) peers += (peers.empty() ? "" : ", ") + reg_.var(p).name;
        st.reason = "simultaneous system solved with " + peers +
                    (found.iterations < 0 ? std::string(" (linear, exactly)")
                                          : fmt::format(" (numerically, {} Newton iterations)", found.iterations));
      }
      steps.push_back(std::move(st));
    }
  }
  std::sort(steps.begin(), steps.end(), [&](const Step& a, const Step& b) { return reg_.var(a.var).name < reg_.var(b.var).name; });
  return steps;
}

void Resolver::ensure(uint32_t var) {
  if (!known(var)) evaluate_cone(var, nullptr, nullptr);
}

const Graph& Resolver::graph() {
  if (!graph_) graph_.emplace(reg_);
  return *graph_;
}

MissingInput Resolver::describe(uint32_t var) {
  MissingInput m;
  m.var = var;
  const Selection& s = selection(var);
  if (auto u = unsolved_.find(var); u != unsolved_.end()) {
    m.category = "unsolved-system";
    m.reason = u->second;
  } else if (auto f = failures_.find(var); f != failures_.end()) {
    m.category = "unevaluable";
    m.reason = "its relation could not be evaluated: " + f->second;
  } else if (s.relation < 0) {
    m.category = s.category;
    m.reason = s.reason;
  } else {
    m.category = "symbolic-boundary";
    m.reason = "nothing it depends on is assigned; assign it or its inputs";
  }
  m.family = family_of(reg_.var(var).name);
  for (uint32_t r : reg_.definitions(var)) {
    m.definitions.push_back(r);
    if (reg_.relation(r).role == Role::Variant) m.variant_keys.push_back(reg_.relation(r).variant_key);
  }
  m.direct_dependents = graph().dependents(var);
  m.dependents_count = graph().dependent_count(var);
  return m;
}

Check Resolver::check_condition(Check c, const std::vector<uint32_t>& vars, const std::function<GiNaC::ex()>& condition) {
  for (uint32_t v : vars) ensure(v);
  GiNaC::ex cond;
  try {
    cond = condition();
    auto d = sym::decide(cond);
    c.status = !d ? CheckStatus::Undetermined : *d ? CheckStatus::Satisfied : CheckStatus::Violated;
  } catch (const std::exception&) {
    // A condition that cannot even be evaluated (division by zero) cannot hold.
    c.status = CheckStatus::Violated;
  }
  for (uint32_t v : vars) {
    auto value = known(v);
    auto x = value ? sym::to_double(*value) : std::nullopt;
    if (x) c.inputs.emplace_back(v, *x);
  }
  if (c.status == CheckStatus::Undetermined) c.missing = symbols_.free_vars(cond);
  return c;
}

void append_domain_checks(const Variable& v, uint32_t var, double x, bool whole, std::vector<Check>& out) {
  auto add = [&](const char* suffix, bool ok, std::string text) {
    Check c;
    c.name = "domain." + v.name + "." + suffix;
    c.kind = "domain", c.var = var, c.text = std::move(text);
    c.status = ok ? CheckStatus::Satisfied : CheckStatus::Violated;
    c.inputs = {{var, x}};
    out.push_back(std::move(c));
  };
  switch (v.assume.sign) {
    case Sign::Positive: add("positive", x > 0, v.name + " > 0"); break;
    case Sign::Nonnegative: add("nonnegative", x >= 0, v.name + " >= 0"); break;
    case Sign::Negative: add("negative", x < 0, v.name + " < 0"); break;
    case Sign::Nonpositive: add("nonpositive", x <= 0, v.name + " <= 0"); break;
    case Sign::Any: break;
  }
  if (v.assume.binary) {
    add("binary", x == 0 || x == 1, v.name + " is 0 or 1");
  } else if (v.assume.integer) {
    add("integer", whole, v.name + " is a whole number");
  }
  if (v.assume.has_range) {
    // Bounds were converted from the display unit, so allow for that rounding.
    auto slack = [&](double bound) { return 1e-12 * std::max(std::fabs(bound), std::fabs(x)); };
    auto shown = [&](double bound) {
      std::string number = fmt::format("{:g}", bound / v.unit_scale);
      return v.unit == "1" ? number : number + " " + v.unit;
    };
    add("min", x >= v.assume.lo - slack(v.assume.lo), v.name + " >= " + shown(v.assume.lo));
    add("max", x <= v.assume.hi + slack(v.assume.hi), v.name + " <= " + shown(v.assume.hi));
  }
}

void Resolver::check_domains(uint32_t var, std::vector<Check>& out) {
  const Variable& v = reg_.var(var);
  if (v.is_constant) return;
  auto value = known(var);
  auto x = value ? sym::to_double(*value) : std::nullopt;
  if (!x) return;
  bool whole = false;
  if (v.assume.integer && !v.assume.binary)
    whole = GiNaC::is_a<GiNaC::numeric>(*value) && GiNaC::ex_to<GiNaC::numeric>(*value).is_rational()
                ? GiNaC::ex_to<GiNaC::numeric>(*value).is_integer()
                : std::fabs(*x - std::round(*x)) <= 1e-9 * std::max(1.0, std::fabs(*x));
  append_domain_checks(v, var, *x, whole, out);
}

void Resolver::check_override(Override& o) {
  o.checked = true;
  if (o.relation < 0) return;
  for (uint32_t d : value_deps(uint32_t(o.relation))) ensure(d);
  try {
    GiNaC::ex x = evaluate_relation(uint32_t(o.relation));
    auto xv = sym::to_double(x);
    if (!xv) {
      o.missing = symbols_.free_vars(x);
      return;
    }
    o.relation_value = *xv;
    o.relative_difference = relative_difference(*xv, o.value);
    o.status = o.relative_difference <= options_.override_tolerance ? CheckStatus::Satisfied : CheckStatus::Violated;
  } catch (const std::exception&) {
    o.status = CheckStatus::Undetermined;
  }
}

Override Resolver::make_override(uint32_t var) {
  Override o;
  o.var = var, o.relation = selection(var).relation, o.value = assignments_.at(var);
  if (options_.check_overrides) check_override(o);
  return o;
}

std::vector<Override> Resolver::overrides() {
  std::vector<Override> out;
  for (const auto& entry : assignments_)
    if (reg_.kind(entry.first) == VarKind::Derived) out.push_back(make_override(entry.first));
  return out;
}

Resolution Resolver::resolve(uint32_t target) {
  // Start from the assignments alone so the trace lists every step this target needs.
  auto start = [&] {
    values_.clear();
    failures_.clear();
    for (const auto& [v, x] : assignments_) values_.emplace(v, sym::number(x));
    for (const auto& [v, x] : solved_) values_.emplace(v, x);
  };
  unsolved_.clear();
  if (!solved_.empty()) {
    // The last target's systems made their members count as known; this target starts afresh.
    solved_.clear();
    std::fill(potential_state_.begin(), potential_state_.end(), uint8_t(0));
  }
  start();

  Resolution res;
  res.target = target;
  std::vector<uint8_t> in_cone;
  evaluate_cone(target, &res.steps, &in_cone);
  if (options_.solve_systems) {
    // Variables left unknown may sit on a small cycle of relations; solve those systems, then
    // evaluate again with their values known (the cone changes, so the potentials are recomputed).
    std::vector<uint32_t> candidates;
    if (auto tv = known(target)) candidates = symbols_.free_vars(*tv);
    else candidates.push_back(target);
    for (const auto& entry : failures_) candidates.push_back(entry.first);
    std::vector<Step> system_steps = solve_systems(candidates);
    if (!system_steps.empty()) {
      std::fill(potential_state_.begin(), potential_state_.end(), uint8_t(0));
      start();
      res.steps = std::move(system_steps);
      evaluate_cone(target, &res.steps, &in_cone);
    }
  }
  auto tv = known(target);
  res.value = tv ? *tv : symbols_.of(target);
  res.number = sym::to_double(res.value);
  res.values = values_;

  for (uint32_t v : symbols_.free_vars(res.value)) res.missing.push_back(describe(v));
  std::sort(res.missing.begin(), res.missing.end(),
            [&](const MissingInput& a, const MissingInput& b) { return reg_.var(a.var).name < reg_.var(b.var).name; });

  std::vector<uint32_t> scope;
  for (uint32_t v = 0; v < in_cone.size(); ++v)
    if (in_cone[v]) scope.push_back(v);
  for (const auto& m : res.missing)
    if (!in_cone[m.var]) scope.push_back(m.var);
  std::sort(scope.begin(), scope.end());

  for (uint32_t v : scope) {
    if (!assignments_.count(v)) continue;
    res.assigned.push_back(v);
    if (reg_.kind(v) == VarKind::Derived) res.overrides.push_back(make_override(v));
  }

  const sym::VarValue lookup = [this](uint32_t w) { return known(w); };
  std::set<uint32_t> seen;
  for (uint32_t v : scope) {
    for (uint32_t r : reg_.constraints_on(v)) {
      if (!seen.insert(r).second) continue;
      const Relation& rel = reg_.relation(r);
      Check c;
      c.name = rel.name, c.kind = "constraint", c.relation = int32_t(r);
      auto left = expr_variables(rel.lhs);
      c.var = left.empty() ? v : left.front();
      c.text = render(rel.lhs, reg_.var_names()) + op_text(rel.compare) + render(rel.rhs, reg_.var_names());
      std::vector<uint32_t> vars(reg_.relation_deps(r).begin(), reg_.relation_deps(r).end());
      res.constraints.push_back(check_condition(std::move(c), vars, [&] {
        return sym::relation(rel.compare, sym::build(rel.lhs, lookup, symbols_).value, sym::build(rel.rhs, lookup, symbols_).value);
      }));
    }
  }
  for (uint32_t v : scope) check_domains(v, res.constraints);

  std::set<uint32_t> checked;
  for (const Step& s : res.steps) {
    const Relation& rel = reg_.relation(s.relation);
    if (rel.role != Role::Approximation || rel.validity.empty() || !checked.insert(s.relation).second) continue;
    Check c;
    c.name = rel.name, c.kind = "validity", c.relation = int32_t(s.relation), c.var = s.var;
    c.text = render(rel.validity, reg_.var_names());
    res.validity.push_back(check_condition(std::move(c), expr_variables(rel.validity),
                                           [&] { return sym::build(rel.validity, lookup, symbols_).value; }));
  }
  return res;
}

}  // namespace gs
