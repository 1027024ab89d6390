// The variable dependency graph: an edge runs from each variable a relation reads to the variable it
// defines. Every field of a value relation counts (right side, validity, iteration count, distribution
// parameters), so a variable that only appears in an approximation's validity is still a dependency.
// Constraints are left out unless asked for; with them, a constraint links every variable it reads to
// the variables on its left side.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/registry.h"

namespace gs {

class Graph {
 public:
  explicit Graph(const Registry& reg, bool include_constraints = false);

  const std::vector<uint32_t>& deps(uint32_t var) const { return deps_[var]; }
  const std::vector<uint32_t>& dependents(uint32_t var) const { return dependents_[var]; }

  // The variable and everything it transitively reads (or is read by), sorted by id.
  std::vector<uint32_t> dependency_cone(uint32_t var) const;
  std::vector<uint32_t> dependent_cone(uint32_t var) const;
  size_t dependent_count(uint32_t var) const;  // transitive, not counting the variable itself

  // Kahn's algorithm over all variables; dependencies come first. Variables left on or behind a cycle
  // are returned in `blocked` (sorted) instead of being ordered.
  struct Order {
    std::vector<uint32_t> order;
    std::vector<uint32_t> blocked;
  };
  Order topological_order() const;

  // Strongly connected components with more than one variable, or a variable reading itself; each
  // sorted, and the list sorted by first member, so the answer does not depend on traversal order.
  std::vector<std::vector<uint32_t>> cycles() const;

  std::vector<uint32_t> leaves() const;  // variables no other variable depends on

 private:
  std::vector<uint32_t> cone(uint32_t var, const std::vector<std::vector<uint32_t>>& edges) const;
  std::vector<std::vector<uint32_t>> deps_, dependents_;
};

}  // namespace gs
