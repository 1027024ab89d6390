// Numeric roots of small nonlinear systems (the resolver's --solve-systems, once every input of the
// system is a number): damped Newton's method with the Jacobian from GiNaC's symbolic derivatives, run
// from several starting points so that a second admissible root is noticed rather than hidden.
//
// A root is reported only when exactly one admissible root was found; otherwise the answer says why
// there is none: no start converged, the Jacobian is singular (a double root, or roots too close to
// tell apart), several roots satisfy the declared domains, or every root found breaks one.
#pragma once

#include <ginac/ginac.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gs {

// Convergence: a full Newton step smaller than kNewtonTolerance relative to every unknown, within
// kNewtonMaxIterations steps. (A member whose root is exactly zero cannot pass a relative test; such a
// system is reported as not converged.)
inline constexpr double kNewtonTolerance = 1e-12;
inline constexpr int kNewtonMaxIterations = 60;

struct NumericSystem {
  std::vector<GiNaC::ex> residuals;  // each must be 0 at the root (member - right side)
  std::vector<GiNaC::ex> unknowns;   // GiNaC symbols, one per residual
  std::vector<std::string> names;    // of the unknowns, for the messages
  // Starting magnitudes (the absolute values of the system's numeric inputs, say); 1 is always added.
  std::vector<double> scales;
  // Why value x breaks unknown i's declared domain, or "" when it does not.
  std::function<std::string(size_t i, double x)> domain_violation;
  // Unknowns that must stay positive (or nonnegative) while iterating: a step never crosses zero.
  std::vector<int> sign;  // +1 positive side only, -1 negative side only, 0 either
};

struct NumericRoot {
  bool solved = false;
  std::vector<double> values;  // when solved
  int iterations = 0;          // Newton steps from the start that found it
  std::string failure;         // when not solved: why, in a sentence
};

NumericRoot solve_numerically(const NumericSystem& system);

}  // namespace gs
