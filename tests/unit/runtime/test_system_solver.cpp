// The numeric system solver on systems whose roots are known in closed form: one admissible root is
// returned to 1e-9, two admissible roots, no real root and a double root are each reported, never a value.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/system_solver.h"

using namespace gs;

namespace {

// x = k / y and y = x + d: x (x + d) = k, so x = (sqrt(d^2 + 4k) - d) / 2 or (-sqrt(d^2 + 4k) - d) / 2.
NumericSystem pair(double k, double d, bool positive) {
  GiNaC::symbol x("x"), y("y");
  NumericSystem s;
  s.residuals = {x - GiNaC::numeric(k) / y, y - x - GiNaC::numeric(d)};
  s.unknowns = {x, y};
  s.names = {"x", "y"};
  s.scales = {k, d};
  if (positive) {
    s.sign = {1, 1};
    s.domain_violation = [](size_t i, double v) { return v > 0 ? std::string() : std::string(i ? "y > 0" : "x > 0"); };
  }
  return s;
}

}  // namespace

TEST_CASE("one admissible root: the golden pair, to 1e-9 of the closed form") {
  NumericRoot r = solve_numerically(pair(1, 1, true));
  REQUIRE(r.solved);
  CHECK(std::fabs(r.values[0] - (std::sqrt(5.0) - 1) / 2) <= 1e-9);
  CHECK(std::fabs(r.values[1] - (std::sqrt(5.0) + 1) / 2) <= 1e-9);
  CHECK(r.iterations > 0);
  CHECK(r.iterations <= kNewtonMaxIterations);
}

TEST_CASE("inputs far from 1: a root found from the inputs' own magnitude") {
  // k = 6e18, d = 1e9: x = 2e9, y = 3e9.
  NumericRoot r = solve_numerically(pair(6e18, 1e9, true));
  REQUIRE(r.solved);
  CHECK(std::fabs(r.values[0] - 2e9) <= 1e-9 * 2e9);
  CHECK(std::fabs(r.values[1] - 3e9) <= 1e-9 * 3e9);
}

TEST_CASE("two admissible roots are reported, not chosen between") {
  NumericRoot r = solve_numerically(pair(1, 1, false));
  CHECK_FALSE(r.solved);
  CHECK(r.failure.find("several roots satisfy the declared domains: ") == 0);
  CHECK(r.failure.find("x = 0.618034, y = 1.61803") != std::string::npos);
  CHECK(r.failure.find("x = -1.61803, y = -0.618034") != std::string::npos);
}

TEST_CASE("no real root: Newton does not converge, and says where the residual stopped") {
  // x (x + 1) = -1 has no real root.
  NumericRoot r = solve_numerically(pair(-1, 1, false));
  CHECK_FALSE(r.solved);
  CHECK(r.failure.find("Newton's method did not converge from any of ") == 0);
  CHECK(r.failure.find("no real root near") != std::string::npos);
}

TEST_CASE("a double root: a singular Jacobian is reported, not the slowly converging value") {
  // x (x + 1) = -1/4 is (x + 1/2)^2 = 0.
  NumericRoot r = solve_numerically(pair(-0.25, 1, false));
  CHECK_FALSE(r.solved);
  CHECK(r.failure.find("singular Jacobian near (x = -0.5") == 0);
}

TEST_CASE("the only root breaks a declared sign") {
  // x (x + 1) = 2 has roots 1 and -2; with y = x + 1 the second is (-2, -1), the first (1, 2). With the
  // sign of x reversed (x must be negative) only (-2, -1) is admissible; with both positive, only (1, 2).
  NumericSystem s = pair(2, 1, false);
  s.domain_violation = [](size_t i, double v) { return i == 1 && v < 0 ? std::string("y > 0") : std::string(); };
  s.sign = {-1, 0};  // x is searched on its negative side only, so only (-2, -1) is found
  NumericRoot r = solve_numerically(s);
  CHECK_FALSE(r.solved);
  CHECK(r.failure == "the root found, (x = -2, y = -1), breaks a declared domain: y > 0");
}
