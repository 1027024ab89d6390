// Uncertainty on a model input: an interval or a named distribution, always in base units.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/rng.h"

namespace gs {

struct Distribution {
  enum class Kind { Uniform, Normal, Lognormal, Triangular } kind = Kind::Uniform;
  // Uniform: a = low, b = high. Normal: a = mean, b = standard deviation. Lognormal: a = median,
  // b = sigma of the underlying normal. Triangular: a = low, b = high, c = mode.
  double a = 0, b = 0, c = 0;

  double sample(Rng& rng) const;
  // Maps a uniform in (0, 1) through the inverse CDF, so stratified or quasi-random designs can reuse it.
  double quantile(double u) const;
  // u[i] = quantile(u[i]) for i < n, the same bits, in one loop (vectorized for the uniform and
  // triangular kinds): how Monte Carlo maps a column of draws.
  void quantiles(double* u, size_t n) const;
  double mean() const;
  std::string describe() const;  // e.g. "normal(mean=1, sd=0.1)"
  // Checks the parameters; returns an empty string when they are valid, else the reason.
  std::string validate() const;
};

// The standard normal quantile (Acklam's approximation refined by one Halley step; relative error
// below 1e-15).
double inverse_normal_cdf(double p);

bool distribution_kind_by_name(const std::string& name, Distribution::Kind& out);

}  // namespace gs
