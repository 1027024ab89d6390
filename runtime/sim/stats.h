// Small statistics for replicated virtual experiments.
#pragma once

#include <cstdint>
#include <vector>

namespace gs::sim {

struct Interval {
  double lower = 0, upper = 0;
};

// Percentile bootstrap interval for the mean of `values` (Efron and Tibshirani, "An Introduction to the
// Bootstrap", 1993, ch. 13): `resamples` resamples drawn with this module's seeded generator, bounds at
// the (1 - level)/2 and (1 + level)/2 nearest-rank quantiles. Deterministic for a seed.
Interval bootstrap_mean_interval(const std::vector<double>& values, double level, uint32_t resamples, uint64_t seed);

double mean(const std::vector<double>& values);

}  // namespace gs::sim
