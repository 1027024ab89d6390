#include "runtime/sim/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "runtime/rng.h"

namespace gs::sim {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

Interval bootstrap_mean_interval(const std::vector<double>& values, double level, uint32_t resamples, uint64_t seed) {
  if (values.empty() || resamples == 0 || !(level > 0 && level < 1)) throw std::invalid_argument("bootstrap needs values, resamples and a level in (0, 1)");
  Rng rng(seed);
  std::vector<double> means(resamples);
  for (auto& m : means) {
    double s = 0;
    for (size_t i = 0; i < values.size(); ++i) s += values[rng.below(values.size())];
    m = s / double(values.size());
  }
  std::sort(means.begin(), means.end());
  auto at = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p * double(resamples)));
    return means[std::min<size_t>(resamples, std::max<size_t>(k, 1)) - 1];
  };
  return {at((1 - level) / 2), at((1 + level) / 2)};
}

}  // namespace gs::sim
