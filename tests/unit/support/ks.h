// Kolmogorov-Smirnov statistics for tests that show two samplers draw the same distribution.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace gs::testing {

// One sample against a CDF: sup |F_n(x) - F(x)|.
template <class Cdf>
double ks_one_sample(std::vector<double> x, Cdf cdf) {
  std::sort(x.begin(), x.end());
  const double n = double(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, std::fabs(f - double(i) / n), std::fabs(double(i + 1) / n - f)});
  }
  return d;
}

// Two samples: sup |F_n(x) - G_m(x)|, ties stepped over together.
inline double ks_two_sample(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  double d = 0;
  size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    const double x = std::min(a[i], b[k]);
    while (i < a.size() && a[i] == x) ++i;
    while (k < b.size() && b[k] == x) ++k;
    d = std::max(d, std::fabs(double(i) / double(a.size()) - double(k) / double(b.size())));
  }
  return d;
}

// Critical values at the 0.1% level from the asymptotic Kolmogorov distribution (c(0.001) = 1.949): one
// sample of n, c / sqrt(n); two samples of n and m, c sqrt((n + m) / (n m)). With fixed seeds a statistic
// is a fixed number, so a test asserting it below these is deterministic.
inline double ks_critical_one_sample(size_t n) { return 1.949 / std::sqrt(double(n)); }
inline double ks_critical_two_sample(size_t n, size_t m) { return 1.949 * std::sqrt(double(n + m) / (double(n) * double(m))); }

inline double standard_normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace gs::testing
