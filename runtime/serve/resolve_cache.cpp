#include "runtime/serve/resolve_cache.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "image/eval.h"
#include "runtime/api/session.h"
#include "runtime/report.h"
#include "runtime/uq/plan.h"

namespace gs::serve {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Relative distance from a constraint's boundary below which doubles may decide it differently from
// the resolver's arithmetic; such requests take the resolver's path.
constexpr double kBoundary = 1e-9;

// The shape of a request: target, the assigned variables (not their values) and the selectors.
std::string shape_key(const ScenarioPoint& s, uint32_t target) {
  std::string key;
  key.reserve(8 + 4 * s.assignments.size());
  auto put = [&](uint32_t x) { key.append(reinterpret_cast<const char*>(&x), sizeof x); };
  put(target);
  put(uint32_t(s.assignments.size()));
  for (const auto& [v, x] : s.assignments) put(v);
  for (const auto& [v, k] : s.variants) put(v), key += k, key += '\0';
  return key;
}

// Close to each other but not equal: rounding could put them on either side. (Equal doubles are decided
// as equal: a bound met exactly, such as a count of 1 against `>= 1`, is the common case.)
bool near(double a, double b) { return a != b && std::fabs(a - b) <= kBoundary * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace

struct ResolveCache::Entry {
  bool usable = false;              // false: this shape always takes the resolver's path
  ResolutionFacts facts;            // the template, without its checks; values are refilled per request
  std::vector<Check> relation_checks, validity_checks;  // the resolver's, re-decided per request
  std::vector<uint32_t> domain_vars;  // whose domain checks follow the relation checks, in the resolver's order
  std::vector<uint32_t> inputs, outputs;  // the cone's columns (variable ids)
  CompiledCone cone;                // the interpreter
  // Declared fallback chains in the cone: the chain's first relation and the one the resolver used at
  // the point that built the entry. A request where a chain would take another relation (so another
  // validity would be checked) goes to the resolver.
  std::vector<std::pair<uint32_t, uint32_t>> chains;
};

ResolveCache::ResolveCache(const Registry& reg, size_t capacity) : reg_(reg), capacity_(std::max<size_t>(1, capacity)) {}
ResolveCache::~ResolveCache() = default;

size_t ResolveCache::size() const {
  std::lock_guard<std::mutex> lock(lru_mutex_);
  return lru_.size();
}

std::shared_ptr<const ResolveCache::Entry> ResolveCache::build(const ScenarioPoint& s, uint32_t target) const {
  auto e = std::make_shared<Entry>();
  const api::ResolveAnswer slow = api::resolve(reg_, s, target, {}, 0);
  const Resolution& res = slow.resolution;
  if (!res.number || !res.missing.empty()) return e;
  // Where a declared fallback may take over, the relation used (and the validity checked) can change
  // from one point to the next: the chain is decided again per request, on the values of its validities.
  std::set<uint32_t> chain_vars;
  for (const Step& step : res.steps) {
    const uint32_t first = step.fallback_from >= 0 ? uint32_t(step.fallback_from) : step.relation;
    if (reg_.relation(first).fallback < 0) continue;
    e->chains.push_back({first, step.relation});
    for (int32_t r = int32_t(first); r >= 0; r = reg_.relation(uint32_t(r)).fallback)
      for (uint32_t v : expr_variables(reg_.relation(uint32_t(r)).validity)) chain_vars.insert(v);
  }
  e->facts = resolution_facts(res);
  e->facts.constraints.clear(), e->facts.validity.clear();
  e->validity_checks = res.validity;

  // The variables the answer reads: the target, and every input of a check the resolver could decide.
  std::set<uint32_t> wanted;
  for (const auto& c : res.constraints) {
    if (c.kind == "domain") {
      if (e->domain_vars.empty() || e->domain_vars.back() != c.var) e->domain_vars.push_back(c.var);
      continue;
    }
    if (e->domain_vars.size()) return e;  // not the resolver's order (relation checks, then domains): never guess
    e->relation_checks.push_back(c);
  }
  for (const auto* list : {&res.constraints, &res.validity})
    for (const auto& c : *list) {
      if (c.status == CheckStatus::Undetermined) continue;
      for (const auto& [v, x] : c.inputs) wanted.insert(v);
      if (c.relation >= 0) {
        const Relation& rel = reg_.relation(uint32_t(c.relation));
        for (const Expr* x : {&rel.lhs, &rel.rhs, &rel.validity})
          for (uint32_t v : expr_variables(*x)) wanted.insert(v);
      }
    }
  wanted.insert(chain_vars.begin(), chain_vars.end());
  wanted.erase(target);
  e->outputs.push_back(target);
  e->outputs.insert(e->outputs.end(), wanted.begin(), wanted.end());
  try {
    Plan plan(reg_, s.assignments, s.variants, e->outputs, {}, /*bake=*/false);
    if (!plan.complete()) return e;
    e->inputs = plan.program().inputs;
    e->cone = plan.cone(Evaluator::Interpreter);
  } catch (const std::exception&) {
    return e;  // a cycle or a program the interpreter refuses: the resolver answers this shape
  }
  // Self-check at the point that built it: the cone must give the resolver's answer.
  e->usable = true;
  const auto fast = facts_at(*e, s);
  e->usable = fast && agrees(*fast, resolution_facts(res));
  return e;
}

bool ResolveCache::agrees(const ResolutionFacts& fast, const ResolutionFacts& exact) {
  // `fast` holds the violated checks only (all the compact document shows).
  auto same_checks = [](const std::vector<Check>& a, const std::vector<Check>& all) {
    std::vector<const Check*> b;
    for (const auto& c : all)
      if (c.status == CheckStatus::Violated) b.push_back(&c);
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].name != b[i]->name || a[i].status != b[i]->status || a[i].inputs.size() != b[i]->inputs.size()) return false;
    return true;
  };
  return fast.number && exact.number && std::fabs(*fast.number - *exact.number) <= 1e-12 * std::fabs(*exact.number) &&
         same_checks(fast.constraints, exact.constraints) && same_checks(fast.validity, exact.validity);
}

std::optional<ResolutionFacts> ResolveCache::facts_at(const Entry& e, const ScenarioPoint& s) const {
  if (!e.usable) return std::nullopt;
  std::vector<double> in(e.inputs.size()), out(e.outputs.size());
  for (size_t i = 0; i < in.size(); ++i) {
    auto it = s.assignments.find(e.inputs[i]);
    if (it == s.assignments.end()) return std::nullopt;
    in[i] = it->second;
  }
  e.cone.one(in.data(), out.data());
  std::vector<double> values(reg_.var_count(), kNaN);
  for (const auto& [v, x] : s.assignments) values[v] = x;
  for (size_t i = 0; i < out.size(); ++i) values[e.outputs[i]] = out[i];
  if (!std::isfinite(out[0])) return std::nullopt;
  // Each fallback chain must take, here, the relation it took where the entry was built.
  for (const auto& [first, used] : e.chains) {
    uint32_t r = first;
    for (; reg_.relation(r).fallback >= 0; r = uint32_t(reg_.relation(r).fallback)) {
      const double truth = eval_reference(reg_.relation(r).validity, values);
      if (truth != 0 && truth != 1) return std::nullopt;
      if (truth == 1) break;
    }
    if (r != used) return std::nullopt;
  }

  // The compact document shows the violated checks only (and counts them), so only those are kept.
  ResolutionFacts f = e.facts;  // its check lists are empty: the entry keeps them apart
  f.number = out[0];
  for (auto& o : f.overrides) o.value = s.assignments.at(o.var);
  // Keeps a violated check with its inputs at this point; false when one has no finite value here.
  auto keep_violated = [&](const Check& c, CheckStatus status, std::vector<Check>& into) {
    for (const auto& [v, x] : c.inputs)
      if (!std::isfinite(values[v])) return false;
    if (status != CheckStatus::Violated) return true;
    Check& k = into.emplace_back(c);
    k.status = status;
    for (auto& [v, x] : k.inputs) x = values[v];
    return true;
  };
  for (const Check& c : e.relation_checks) {
    if (c.status == CheckStatus::Undetermined) continue;
    const Relation& rel = reg_.relation(uint32_t(c.relation));
    const double lhs = eval_reference(rel.lhs, values), rhs = eval_reference(rel.rhs, values);
    if (!std::isfinite(lhs) || !std::isfinite(rhs) || near(lhs, rhs)) return std::nullopt;
    if (!keep_violated(c, eval_binary(rel.compare, lhs, rhs) != 0 ? CheckStatus::Satisfied : CheckStatus::Violated, f.constraints)) return std::nullopt;
  }
  std::vector<Check> domain;
  for (uint32_t v : e.domain_vars) {
    const double x = values[v];
    if (!std::isfinite(x)) return std::nullopt;
    const bool exact = x == std::round(x), close = std::fabs(x - std::round(x)) <= 1e-9 * std::max(1.0, std::fabs(x));
    if (reg_.var(v).assume.integer && exact != close) return std::nullopt;  // the resolver decides it on exact values
    domain.clear();
    append_domain_checks(reg_.var(v), v, x, exact, domain);
    for (auto& c : domain)
      if (c.status == CheckStatus::Violated) f.constraints.push_back(std::move(c));
  }
  for (const Check& c : e.validity_checks) {
    if (c.status == CheckStatus::Undetermined) continue;
    const double truth = eval_reference(reg_.relation(uint32_t(c.relation)).validity, values);
    if (truth != 0 && truth != 1) return std::nullopt;
    if (!keep_violated(c, truth != 0 ? CheckStatus::Satisfied : CheckStatus::Violated, f.validity)) return std::nullopt;
  }
  return f;
}

std::optional<std::string> ResolveCache::compact(const ScenarioPoint& s, uint32_t target, std::mutex& model) {
  const std::string key = shape_key(s, target);
  std::shared_ptr<const Entry> e;
  {
    std::lock_guard<std::mutex> lock(lru_mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      e = it->second->second;
    }
  }
  if (!e) {
    {
      std::lock_guard<std::mutex> lock(model);
      e = build(s, target);
    }
    std::lock_guard<std::mutex> lock(lru_mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // another request built it meanwhile
    } else {
      lru_.emplace_front(key, e);
      index_.emplace(key, lru_.begin());
      if (lru_.size() > capacity_) index_.erase(lru_.back().first), lru_.pop_back();
    }
  }
  const auto f = facts_at(*e, s);
  if (!f) return std::nullopt;
  return resolution_json(reg_, *f);
}

}  // namespace gs::serve
