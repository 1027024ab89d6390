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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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
  std::string target;  // empty: blast radius of every registry root
  std::string scope;   // a system: rank only its roots (blast-radius modes); empty: every system
};

// ---- the answer, with names and display texts resolved so that it stands without the registry

enum class RootDebtMode { blast_radius, families, influence, influence_families };
std::string to_string(RootDebtMode m);  // "blast-radius", "families", "influence", "influence-families"

// One registry root as the blast-radius ranking shows it.
struct RootDebtLine {
  std::string variable, system, family, unit;
  size_t dependents = 0;
  std::string boundary_category;
  bool primitive_boundary = true;
};

// One family of registry roots and its heaviest (at most four) members.
struct RootFamilyLine {
  std::string family, boundary_category;
  bool primitive_boundary = true;
  size_t total_weight = 0, root_count = 0;
  std::vector<std::pair<std::string, size_t>> top;  // variable, dependents
};

// One input of the target's cone, in rank order.
struct InfluenceLine {
  size_t rank = 0;
  std::string variable, status, family, boundary_category;
  bool primitive_boundary = false;
  std::optional<double> value;  // base units
  std::string unit, si_unit;
  std::optional<std::string> display;  // the value in the variable's display unit, when there is one
  std::optional<double> derivative, elasticity, variance_share;
  std::optional<std::string> distribution;
  size_t dependents = 0;
  std::optional<Origin> origin;  // the layer that set it; none for an input the scenario does not assign
};

// The inputs of one family (name prefix) together, blocking ones first, then by summed |elasticity|.
struct InfluenceFamilyLine {
  struct Member {
    std::string variable, status;
    std::optional<double> elasticity;
  };
  std::string family;
  size_t blocking = 0, input_count = 0;
  double abs_elasticity = 0, variance_share = 0;
  std::vector<Member> top;  // the first four in rank order
};

// How the variance shares are computed, as the reports state it.
inline constexpr const char* kVarianceMethod = "first-order Taylor: (dy/dx)^2 Var(x), normalised";

struct RootDebtReport {
  RootDebtMode mode = RootDebtMode::blast_radius;
  bool include_constraints = false;
  // Blast-radius modes: every root in `scope` (empty: every system), the shown rows or families.
  std::string scope;
  size_t total_roots = 0;
  size_t family_count = 0;  // both families modes: how many there are (the shown ones are below)
  std::vector<RootDebtLine> roots;
  std::vector<RootFamilyLine> root_families;
  // Influence modes: the target under the scenario and its inputs (rows or families, the shown ones).
  std::string target, scenario, unit, si_unit;
  std::optional<double> value;        // base units
  std::optional<std::string> display;  // with value
  std::string formula;                 // without value: the start of the symbolic value
  size_t inputs = 0, missing = 0, roots_outside_cone = 0, relations_differentiated = 0, numeric_partials = 0;
  std::optional<double> linear_sd;  // when the scenario gives an input of the target a distribution
  std::string linear_sd_display;
  std::vector<std::string> uncertain_outside_cone;
  std::vector<InfluenceLine> rows;
  std::vector<InfluenceFamilyLine> families;

  // How many rows (or families) the report shows.
  size_t shown() const;
};
void to_json(nlohmann::ordered_json& j, const RootDebtReport& r);

// The ranking `req` asks for. Bad input (an unknown target or system, --scope with --target) throws PresetError.
RootDebtReport root_debt(const Registry& reg, const AnalysisScenario& scenario, const RootDebtRequest& req);

}  // namespace gs
