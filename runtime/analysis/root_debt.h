// Root debt: which unassigned inputs matter most.
//
// Without a target, every root input of the registry (a variable no relation defines) is weighed by
// its blast radius: the number of variables that transitively depend on it. Families group roots by
// name prefix (resolver.h's family_of) and sum their weights.
//
// With a target, the rows are the target's inputs under the scenario (assigned roots, assignments that
// override a relation, and missing inputs), ranked by influence (influence.h): inputs that block the
// target first, then by |elasticity|.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/analysis/scenario.h"
#include "runtime/graph.h"
#include "runtime/registry.h"

namespace gs {

struct RootDebtRow {
  uint32_t var = 0;
  size_t dependents = 0;
  std::string family;
  std::string boundary_category = "primitive-root";  // every registry root is a primitive boundary
  bool primitive_boundary = true;
};

struct RootFamily {
  std::string family, boundary_category;
  bool primitive_boundary = true;
  size_t total_weight = 0;         // sum of the members' dependents
  std::vector<RootDebtRow> members;  // heaviest first
};

// Registry roots, heaviest first (ties by name).
std::vector<RootDebtRow> root_debt_rows(const Registry& reg, const Graph& graph);
// Families by (-total weight, -root count, name).
std::vector<RootFamily> root_families(const Registry& reg, const std::vector<RootDebtRow>& rows);

struct RootDebtRequest {
  bool families = false;
  size_t limit = 20;
  bool include_constraints = false;
  bool json = false;
  std::string target;  // empty: blast radius of every registry root
  std::string scope;   // a system: rank only its roots (blast-radius modes); empty: every system
};

// Prints the ranking; returns 0. Bad input (an unknown target) throws PresetError.
int root_debt_command(const Registry& reg, const AnalysisScenario& scenario, const RootDebtRequest& req,
                      std::ostream& out, std::ostream& err);

}  // namespace gs
