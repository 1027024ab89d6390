// The resolver: given assignments (base units) and variant selectors, computes a target's value by
// selecting one defining relation per variable and evaluating the target's cone in dependency order.
//
// Selection, in order: the variable's identity; else the variant its selector names; else its single
// approximation; else the mean of its stochastic relation. Differential relations never define a
// value. An assignment always wins over a relation; when the variable has a relation, the assignment
// is reported as an override and can be checked against it.
//
// The cone stops where nothing below is assigned or computable: such a variable stays a symbol, is
// reported as a missing input (a named boundary, never a default), and the target's value is then a
// formula in the missing inputs. After evaluation the constraints and declared domains of every
// variable in the cone are checked, and the validity condition of every approximation that was used.
#pragma once

#include <ginac/ginac.h>

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/registry.h"
#include "runtime/symbolic.h"

namespace gs {

struct ResolveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ResolveOptions {
  bool explain = false;             // record why each relation was selected
  bool check_overrides = false;     // evaluate the relation an assignment overrides and compare
  double override_tolerance = 1e-6; // relative difference beyond which an override disagrees
  // When a selected approximation's validity is definitely false under the values known so far, use the
  // variable's single alternative relation instead (its identity, else its one other approximation, else
  // its one variant), and say so in the trace. A fallback the model declares (`approx a when ... fallback
  // b`) needs no option: it is used whenever a's validity is definitely false or a cannot be evaluated.
  bool fallback_on_violated_validity = false;
  // Solve small simultaneous systems (2 or 3 variables whose selected relations read each other and
  // otherwise only known numbers) instead of leaving them as missing inputs: a linear system exactly
  // with GiNaC's linear solver, a nonlinear one numerically (runtime/system_solver.h). A system that
  // cannot be solved stays missing, with the reason in its members' MissingInput.
  bool solve_systems = false;
};

// Largest simultaneous system ResolveOptions::solve_systems attempts.
inline constexpr size_t kMaxSystemSize = 3;

enum class CheckStatus : uint8_t { Satisfied, Violated, Undetermined };
const char* check_status_name(CheckStatus s);

// One evaluated condition: a constraint relation, a declared domain, or an approximation's validity.
struct Check {
  std::string name;  // relation name, or "domain.<variable>.<assumption>"
  std::string kind;  // "constraint", "domain" or "validity"
  int32_t relation = -1;
  uint32_t var = 0;  // the variable it bounds (the first on a constraint's left side)
  std::string text;  // the condition, as in the model
  CheckStatus status = CheckStatus::Undetermined;
  std::vector<uint32_t> missing;                    // unknowns that kept it undetermined
  std::vector<std::pair<uint32_t, double>> inputs;  // the known values it read (base units)
};

struct MissingInput {
  uint32_t var = 0;
  std::string category;  // primitive-root, symbolic-boundary, variant-family, ambiguous, unevaluable, unsolved-system
  std::string reason;
  std::string family;    // compact bucket from the dotted name, e.g. "cluster.node"
  std::vector<std::string> variant_keys;
  std::vector<uint32_t> definitions;        // relations that could define it
  std::vector<uint32_t> direct_dependents;  // variables whose relations read it
  size_t dependents_count = 0;              // transitive
};

struct Step {
  uint32_t var = 0;
  uint32_t relation = 0;
  GiNaC::ex value;
  std::string reason;  // why this relation was selected (with ResolveOptions::explain)
  int32_t fallback_from = -1;          // the approximation this step replaced (validity violated, or not evaluable)
  std::vector<uint32_t> system_peers;  // the other members of the simultaneous system it was solved with
  int system_iterations = -1;          // Newton steps when that system was solved numerically; -1: exactly
};

// An assignment to a variable that a relation could have computed.
struct Override {
  uint32_t var = 0;
  int32_t relation = -1;  // the relation it displaces; -1 for a variant family without a selector
  double value = 0;       // assigned, base units
  bool checked = false;   // with ResolveOptions::check_overrides
  CheckStatus status = CheckStatus::Undetermined;  // Satisfied: agrees; Violated: disagrees
  std::optional<double> relation_value;
  double relative_difference = 0;
  std::vector<uint32_t> missing;  // why the relation could not be evaluated
};

struct Resolution {
  uint32_t target = 0;
  GiNaC::ex value;               // a number, or a formula in the missing inputs
  std::optional<double> number;  // base units, when the value is a real number
  std::vector<Step> steps;       // computed variables in evaluation order
  std::vector<MissingInput> missing;
  std::vector<Override> overrides;
  std::vector<Check> constraints;  // constraint relations, then declared domains
  std::vector<Check> validity;     // approximations that were used
  std::vector<uint32_t> assigned;  // assignments the resolution read
  std::map<uint32_t, GiNaC::ex> values;  // every variable with a value: assigned, constant or computed

  const Step* step_for(uint32_t var) const;
  size_t violations() const;  // violated constraints, domains and validity conditions
};

// Violated checks in both lists (Resolution::violations, and the server's fast path).
size_t count_violations(const std::vector<Check>& constraints, const std::vector<Check>& validity);

// The declared domain checks (sign, binary or integer, range) of variable `var` at value `x`, appended to
// `out`; `whole` says whether x is an integer (the resolver decides it exactly on rational values).
void append_domain_checks(const Variable& v, uint32_t var, double x, bool whole, std::vector<Check>& out);

// |a - b| relative to the larger magnitude; 0 when both are 0.
double relative_difference(double a, double b);

// Family bucket of a dotted name: the first two parts of a name with three or more parts, else the
// first part ("cluster.node.n_gpus" -> "cluster.node", "gpu.peak_flops" -> "gpu").
std::string family_of(const std::string& name);

// Variables the value of a relation reads: its right side, and for iterations the start and count too
// (validity conditions and distribution parameters are checked or traced, not evaluated).
std::vector<uint32_t> relation_value_deps(const Relation& r);

// Why selecting variant `key` for `var` is impossible, or "" when it is a valid selector.
std::string variant_selector_error(const Registry& reg, uint32_t var, const std::string& key);

class Resolver {
 public:
  // Throws ResolveError when a selector names no variant of its variable or an assignment targets a
  // constant. Assignments are in base units.
  Resolver(const Registry& reg, std::map<uint32_t, double> assignments, std::map<uint32_t, std::string> variants,
           ResolveOptions options = {});

  Resolution resolve(uint32_t target);

  struct Selection {
    int32_t relation = -1;  // -1: nothing selectable
    std::string reason;     // why it was selected, or why nothing was
    std::string category;   // when nothing was: primitive-root, variant-family or ambiguous
  };
  const Selection& selection(uint32_t var);
  // Variables read by the value of a relation (the right side; for iterations also the start and count).
  const std::vector<uint32_t>& value_deps(uint32_t relation);

  // Every assignment that pins a variable some relation could compute, with the relation it displaces.
  std::vector<Override> overrides();

  sym::Symbols& symbols() { return symbols_; }

 private:
  struct Potential {
    bool reaches_assignment = false;
    bool resolvable = false;
  };
  Potential potential(uint32_t var);
  // The relation to use for `var` instead of `relation` when its validity is violated, or -1.
  int32_t fallback_for(uint32_t var, uint32_t relation);
  // Solves the small systems among `candidates` (variables left unknown); records their values in
  // solved_ and returns one step per solved variable.
  std::vector<Step> solve_systems(const std::vector<uint32_t>& candidates);
  std::vector<uint32_t> system_of(uint32_t var);
  // The values of a closed system's members (every outside input a number), or why there are none.
  struct SystemValues {
    std::map<uint32_t, GiNaC::ex> values;
    int iterations = -1;  // Newton steps; -1 for an exact linear solution
    std::string failure;
  };
  SystemValues solve_system(const std::vector<uint32_t>& members);
  void collect_cone(uint32_t target, std::vector<uint8_t>& in_cone);
  void evaluate_cone(uint32_t target, std::vector<Step>* steps, std::vector<uint8_t>* cone_out);
  GiNaC::ex evaluate_relation(uint32_t relation);
  std::optional<GiNaC::ex> known(uint32_t var);
  void ensure(uint32_t var);
  // Evaluates a condition after resolving the variables it reads (each through its own cone).
  Check check_condition(Check c, const std::vector<uint32_t>& vars, const std::function<GiNaC::ex()>& condition);
  void check_domains(uint32_t var, std::vector<Check>& out);
  Override make_override(uint32_t var);
  void check_override(Override& o);
  MissingInput describe(uint32_t var);
  const Graph& graph();

  const Registry& reg_;
  std::map<uint32_t, double> assignments_;
  std::map<uint32_t, std::string> variants_;
  ResolveOptions options_;
  sym::Symbols symbols_;
  std::map<uint32_t, GiNaC::ex> values_;
  std::map<uint32_t, GiNaC::ex> solved_;  // values of simultaneous systems, kept like assignments
  std::map<uint32_t, std::string> failures_;  // variables whose relation could not be evaluated, and why
  std::map<uint32_t, std::string> unsolved_;  // members of systems --solve-systems could not solve, and why
  std::vector<std::optional<Selection>> selections_;
  std::vector<std::optional<std::vector<uint32_t>>> value_deps_;
  std::vector<uint8_t> potential_state_;  // 0 unknown, 1 on the stack, 2 known
  std::vector<Potential> potentials_;
  std::optional<Graph> graph_;
};

}  // namespace gs
