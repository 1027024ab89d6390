#include "runtime/system_solver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "runtime/symbolic.h"

namespace gs {
namespace {

using Vec = std::vector<double>;

// A Jacobian whose smallest pivot, after each row is scaled to a largest entry of 1, is below this is
// treated as singular: the Newton step is then meaningless (no unique direction).
constexpr double kSingularPivot = 1e-12;
// At a converged point, a smallest scaled pivot below this means a double root (or two roots closer than
// the iteration can separate): Newton's quadratic convergence is lost and the value is not trusted.
constexpr double kRootPivot = 1e-7;
// A run that stops with a relative residual (relative_residual) below this stopped beside a root.
constexpr double kNearRoot = 1e-8;
// Two roots closer than this (relative) are the same root.
constexpr double kSameRoot = 1e-8;

class Evaluator {
 public:
  explicit Evaluator(const NumericSystem& s) : s_(s) {
    for (const auto& r : s.residuals) {
      std::vector<GiNaC::ex> row;
      for (const auto& u : s.unknowns) row.push_back(r.diff(GiNaC::ex_to<GiNaC::symbol>(u)));
      jacobian_.push_back(std::move(row));
    }
  }

  // The residuals at x; nullopt where one is not a finite number (outside the relations' domain).
  std::optional<Vec> residuals(const Vec& x) const {
    const GiNaC::exmap at = point(x);
    Vec f;
    for (const auto& r : s_.residuals) {
      auto v = value(r, at);
      if (!v) return std::nullopt;
      f.push_back(*v);
    }
    return f;
  }

  std::optional<std::vector<Vec>> jacobian(const Vec& x) const {
    const GiNaC::exmap at = point(x);
    std::vector<Vec> j;
    for (const auto& row : jacobian_) {
      Vec r;
      for (const auto& d : row) {
        auto v = value(d, at);
        if (!v) return std::nullopt;
        r.push_back(*v);
      }
      j.push_back(std::move(r));
    }
    return j;
  }

 private:
  GiNaC::exmap point(const Vec& x) const {
    GiNaC::exmap m;
    for (size_t i = 0; i < x.size(); ++i) m[s_.unknowns[i]] = GiNaC::numeric(x[i]);
    return m;
  }
  static std::optional<double> value(const GiNaC::ex& e, const GiNaC::exmap& at) {
    try {
      auto v = sym::to_double(e.subs(at).evalf());
      if (v && std::isfinite(*v)) return v;
    } catch (const std::exception&) {
      // a division by zero at this point
    }
    return std::nullopt;
  }

  const NumericSystem& s_;
  std::vector<std::vector<GiNaC::ex>> jacobian_;
};

// Solves J d = -f by Gaussian elimination with partial pivoting on row-equilibrated J. Returns the
// smallest scaled pivot (0 for a zero row); d is valid when that is at least kSingularPivot.
double newton_direction(std::vector<Vec> j, Vec f, Vec& d) {
  const size_t n = f.size();
  for (size_t i = 0; i < n; ++i) {
    double big = 0;
    for (double x : j[i]) big = std::max(big, std::fabs(x));
    if (big == 0) return 0;
    for (double& x : j[i]) x /= big;
    f[i] /= big;
  }
  double smallest = 1;
  for (size_t col = 0; col < n; ++col) {
    size_t p = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(j[r][col]) > std::fabs(j[p][col])) p = r;
    std::swap(j[p], j[col]), std::swap(f[p], f[col]);
    smallest = std::min(smallest, std::fabs(j[col][col]));
    if (smallest < kSingularPivot) return smallest;
    for (size_t r = col + 1; r < n; ++r) {
      const double k = j[r][col] / j[col][col];
      for (size_t c = col; c < n; ++c) j[r][c] -= k * j[col][c];
      f[r] -= k * f[col];
    }
  }
  d.assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    double s = -f[i];
    for (size_t c = i + 1; c < n; ++c) s -= j[i][c] * d[c];
    d[i] = s / j[i][i];
  }
  return smallest;
}

struct Run {
  enum Outcome { Converged, Singular, Stalled, Undefined } outcome = Stalled;
  Vec x;
  int iterations = 0;
  double residual = 0;  // largest residual at x relative to its member's size (relative_residual)
};

// Residual i is member i minus its right side g_i, so |f_i| / max(|x_i|, |g_i|) is scale-free: how far
// apart the two sides of the member's relation are, as a share of their size.
double relative_residual(const Vec& x, const Vec& f) {
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double size = std::max(std::fabs(x[i]), std::fabs(x[i] - f[i]));
    if (f[i] != 0) worst = std::max(worst, size > 0 ? std::fabs(f[i]) / size : HUGE_VAL);
  }
  return worst;
}

// Damped Newton from x: the full step, halved until the weighted largest residual falls (and every
// sign-restricted unknown stays on its side). Converged when a full step is below kNewtonTolerance of
// every unknown.
Run newton(const Evaluator& ev, const NumericSystem& s, Vec x, double scale) {
  const size_t n = x.size();
  Vec w(n);
  for (size_t i = 0; i < n; ++i) w[i] = 1 / std::max(std::fabs(x[i]), scale);
  auto norm = [&](const Vec& f) {
    double m = 0;
    for (size_t i = 0; i < n; ++i) m = std::max(m, w[i] * std::fabs(f[i]));
    return m;
  };
  Run run;
  auto f = ev.residuals(x);
  auto stop = [&](Run::Outcome o) {
    run.outcome = o, run.x = x, run.residual = f ? relative_residual(x, *f) : HUGE_VAL;
    return run;
  };
  if (!f) return stop(Run::Undefined);
  for (run.iterations = 0; run.iterations < kNewtonMaxIterations; ++run.iterations) {
    auto j = ev.jacobian(x);
    Vec d;
    if (!j) return stop(Run::Undefined);
    if (newton_direction(*j, *f, d) < kSingularPivot) return stop(Run::Singular);
    bool small = true;
    for (size_t i = 0; i < n; ++i) small = small && std::fabs(d[i]) <= kNewtonTolerance * std::fabs(x[i]);
    if (small) {
      for (size_t i = 0; i < n; ++i) x[i] += d[i];  // the last, tiny step polishes the root
      f = ev.residuals(x);
      return stop(f ? Run::Converged : Run::Undefined);
    }
    const double now = norm(*f);
    bool moved = false;
    for (double t = 1; t > 1e-9; t /= 2) {
      Vec y(n);
      bool inside = true;
      for (size_t i = 0; i < n; ++i) {
        y[i] = x[i] + t * d[i];
        if (i < s.sign.size() && s.sign[i] * y[i] < 0) inside = false;
      }
      if (!inside) continue;
      auto g = ev.residuals(y);
      if (!g || norm(*g) > (1 - 1e-4 * t) * now) continue;
      x = std::move(y), f = std::move(g), moved = true;
      break;
    }
    if (!moved) break;  // no step lowers the residual: a local minimum of it, or rounding beside a double root
  }
  return stop(Run::Stalled);
}

std::string point_text(const NumericSystem& s, const Vec& x) {
  std::string out = "(";
  for (size_t i = 0; i < x.size(); ++i) out += fmt::format("{}{} = {:.6g}", i ? ", " : "", s.names[i], x[i]);
  return out + ")";
}

bool same_root(const Vec& a, const Vec& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > kSameRoot * std::max(std::fabs(a[i]), std::fabs(b[i]))) return false;
  return true;
}

// Starting points: every unknown at one of the magnitudes, with the signs it may take (all the same
// sign, then alternating, so a root with mixed signs is reachable too).
std::vector<std::pair<Vec, double>> starts(const NumericSystem& s) {
  std::vector<double> mags{1};
  for (double m : s.scales)
    if (std::isfinite(m) && m != 0) mags.push_back(std::fabs(m));
  std::sort(mags.begin(), mags.end());
  mags.erase(std::unique(mags.begin(), mags.end(), [](double a, double b) { return std::fabs(a - b) <= 1e-9 * b; }), mags.end());
  const size_t n = s.unknowns.size();
  std::vector<std::pair<Vec, double>> out;
  for (double m : mags)
    for (int pattern = 0; pattern < 4; ++pattern) {
      Vec x(n);
      for (size_t i = 0; i < n; ++i) {
        const bool negative = pattern == 1 || (pattern == 2 && i % 2) || (pattern == 3 && i % 2 == 0);
        const int fixed = i < s.sign.size() ? s.sign[i] : 0;
        x[i] = (fixed != 0 ? fixed : negative ? -1 : 1) * m;
      }
      bool seen = false;
      for (const auto& [y, ym] : out) seen = seen || (y == x);
      if (!seen) out.emplace_back(std::move(x), m);
    }
  return out;
}

}  // namespace

NumericRoot solve_numerically(const NumericSystem& s) {
  NumericRoot answer;
  const Evaluator ev(s);
  struct Found {
    Vec x;
    int iterations;
    double scale;
  };
  std::vector<Found> admissible, rejected;
  std::string rejection;
  std::optional<Vec> singular_at;
  std::optional<Run> closest;  // of the starts that found no root: the one whose residual fell lowest
  const auto points = starts(s);
  for (const auto& [x0, scale] : points) {
    Run run = newton(ev, s, x0, scale);
    if (run.outcome == Run::Converged) {
      // A root where the Jacobian is (nearly) singular is a double root: reported, never returned.
      auto j = ev.jacobian(run.x);
      Vec d;
      if (!j || newton_direction(*j, *ev.residuals(run.x), d) < kRootPivot) {
        if (!singular_at) singular_at = run.x;
        continue;
      }
      std::string why;
      for (size_t i = 0; i < run.x.size() && why.empty(); ++i) why = s.domain_violation ? s.domain_violation(i, run.x[i]) : "";
      auto& pool = why.empty() ? admissible : rejected;
      bool known = false;
      for (const auto& r : pool) known = known || same_root(r.x, run.x);
      if (known) continue;
      pool.push_back({run.x, run.iterations, scale});
      if (!why.empty() && rejection.empty()) rejection = why;
    } else if (run.residual <= kNearRoot) {
      // Stopped (a singular step, or no step lowering the residual) with the two sides of every relation
      // already close: beside a double root, where the Jacobian vanishes and Newton loses its footing.
      if (!singular_at) singular_at = run.x;
    } else if (!closest || run.residual < closest->residual) {
      closest = run;
    }
  }
  if (admissible.size() == 1) {
    answer.solved = true;
    answer.values = admissible.front().x;
    answer.iterations = admissible.front().iterations;
    return answer;
  }
  if (admissible.size() > 1) {
    std::string roots;
    for (size_t i = 0; i < admissible.size(); ++i)
      roots += (i == 0 ? "" : i + 1 == admissible.size() ? " and " : ", ") + point_text(s, admissible[i].x);
    answer.failure = "several roots satisfy the declared domains: " + roots + "; a declared sign or range on a member would pick one";
  } else if (!rejected.empty()) {
    answer.failure = "the root found, " + point_text(s, rejected.front().x) + ", breaks a declared domain: " + rejection;
  } else if (singular_at) {
    answer.failure = "singular Jacobian near " + point_text(s, *singular_at) + ": a double root, or roots too close to tell apart";
  } else {
    answer.failure = fmt::format("Newton's method did not converge from any of {} starting points (at most {} iterations each)",
                                 points.size(), kNewtonMaxIterations);
    if (closest && std::isfinite(closest->residual))
      answer.failure += fmt::format("; the residual stops falling at {}, where the sides of a relation still differ by {:.3g}% of their size "
                                    "(no real root near it{})",
                                    point_text(s, closest->x), 100 * closest->residual,
                                    std::any_of(s.sign.begin(), s.sign.end(), [](int x) { return x != 0; })
                                        ? " on the sides the members' declared signs allow"
                                        : "");
  }
  return answer;
}

}  // namespace gs
