// The server's fast path for `resolve` without a trace: numbers from the Plan layer's interpreter
// (runtime/uq/plan.h: plain doubles, safe on many threads), GiNaC only to build an entry.
//
// What the compact answer shows besides the number (the assigned inputs, the overrides, which checks
// exist, their conditions and inputs, missing inputs) depends on the scenario's shape, not on its values:
// which variables are assigned, the variant selectors, and the target. So an entry is built once per
// shape, under the caller's GiNaC lock: the resolver's answer at that point (the template) and a
// compiled cone whose inputs are every assigned variable and whose outputs are the target and every
// variable a check reads. A later request of the same shape runs the cone at its own values, fills the
// template, and re-decides each check with the image's double kernels (image/eval.h), the same kernels
// the interpreter uses.
//
// When the doubles cannot stand in for the resolver's exact arithmetic, the cache answers nothing and
// the caller resolves as the CLI does: a non-finite value (the resolver would call a relation
// unevaluable), a constraint within 1e-9 of its boundary, an integer domain check that rounding could
// flip, or an entry whose cone disagreed with the resolver when it was built. Entries are kept in a
// bounded least-recently-used list (requests choose the shapes).
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "runtime/uq/commands.h"
#include "runtime/registry.h"
#include "runtime/report.h"

namespace gs::serve {

class ResolveCache {
 public:
  explicit ResolveCache(const Registry& reg, size_t capacity = 256);
  ~ResolveCache();

  // resolution_json(reg, resolve(s, target), false) for a scenario with no interval asked, or nullopt
  // when the caller must resolve it itself. `model` guards GiNaC: taken only while an entry is built.
  std::optional<std::string> compact(const ScenarioPoint& s, uint32_t target, std::mutex& model);

  size_t size() const;
  size_t capacity() const { return capacity_; }

 private:
  struct Entry;
  std::shared_ptr<const Entry> build(const ScenarioPoint& s, uint32_t target) const;
  // The answer's facts at `s` by the entry's cone; nullopt when the resolver must decide.
  std::optional<ResolutionFacts> facts_at(const Entry& e, const ScenarioPoint& s) const;
  // The cone's facts match the resolver's: the number to 1e-12 relative, every check's outcome.
  static bool agrees(const ResolutionFacts& fast, const ResolutionFacts& exact);

  const Registry& reg_;
  size_t capacity_;
  mutable std::mutex lru_mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const Entry>>> lru_;  // most recent first
  std::unordered_map<std::string, decltype(lru_)::iterator> index_;
};

}  // namespace gs::serve
