// Influence of a scenario's inputs on one target: the elasticity d ln y / d ln x at the scenario's
// point, and, where the scenario gives inputs a distribution, each input's first-order share of the
// target's variance.
//
// Derivatives come from GiNaC. The resolver selects one relation per variable of the target's cone;
// each selected relation is rebuilt with its inputs as symbols and differentiated symbolically, the
// local partials are evaluated at the scenario's point, and the chain rule runs backwards along the
// cone (reverse accumulation: one pass gives dy/dx for every input at once). Non-smooth functions are
// differentiated on the branch active at the point: min and max pick their smaller or larger argument,
// piecewise its selected case, abs its sign; floor and ceil count as constant. Where GiNaC still
// cannot give a number (an iterative relation), the local partial is a central difference of the
// exactly evaluated relation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/distribution.h"
#include "runtime/graph.h"
#include "runtime/registry.h"

namespace gs {

struct InputInfluence {
  uint32_t var = 0;
  // "missing": no value, so the target cannot be computed (it blocks); "assigned": a root input the
  // scenario sets; "override": an assignment to a variable a relation could compute.
  std::string status;
  std::string category;  // missing inputs: the resolver's boundary category; else primitive-root or override
  std::optional<double> value;           // base units
  std::optional<double> derivative;      // dy/dx in base units at the scenario's point
  std::optional<double> elasticity;      // (x / y) dy/dx
  std::optional<double> variance_share;  // of the first-order variance of y, where x has a distribution
  std::optional<Distribution> distribution;
  size_t dependents = 0;  // transitive dependents in the registry graph (blast radius)
};

struct InfluenceResult {
  uint32_t target = 0;
  std::optional<double> value;  // base units, when the target resolves to a number
  std::string formula;          // the symbolic value otherwise
  // Ranked: missing inputs first (most dependents first), then by |elasticity|, largest first.
  std::vector<InputInfluence> inputs;
  size_t missing = 0;
  size_t steps = 0;             // relations along the cone
  size_t numeric_partials = 0;  // local partials that needed a finite difference
  std::vector<uint32_t> uncertain_outside;  // inputs with a distribution that the target does not read
  std::optional<double> linear_sd;          // sqrt of the first-order variance of y
};

// `graph` supplies the blast radius; pass the one built for the whole command so it is built once.
InfluenceResult influence(const Registry& reg, const std::map<uint32_t, double>& assignments,
                          const std::map<uint32_t, std::string>& variants, uint32_t target, const Graph& graph,
                          const std::map<uint32_t, Distribution>& uncertain = {});

// First-order (Taylor) variance shares: share_i = (dy/dx_i)^2 Var(x_i) / sum_j (dy/dx_j)^2 Var(x_j).
// Equal to elasticity_i^2 CV_i^2 normalised when every x_i is nonzero; this form also covers x_i = 0.
// Inputs without a derivative get no share. Returns the total (the linear variance of y).
double assign_variance_shares(std::vector<InputInfluence>& inputs);

}  // namespace gs
