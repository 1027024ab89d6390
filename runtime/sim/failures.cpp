#include "runtime/sim/failures.h"
#include "runtime/sim/sim_time.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/detmath.h"

namespace gs::sim {

uint64_t domain_count(uint32_t domain_nodes, const std::vector<uint32_t>& site_nodes) {
  uint64_t n = 0;
  for (uint32_t s : site_nodes) n += (uint64_t(s) + domain_nodes - 1) / domain_nodes;
  return n;
}

FailureProcess::FailureProcess(const std::vector<FailureClass>& classes, uint64_t gpus, uint64_t nodes, uint64_t jobs,
                               const std::vector<uint32_t>& site_nodes) {
  for (const auto& c : classes) {
    uint64_t n = 0;
    switch (c.unit) {
      case FailureUnit::gpu: n = gpus; break;
      case FailureUnit::node: n = nodes; break;
      case FailureUnit::domain: n = c.domain_nodes ? domain_count(c.domain_nodes, site_nodes) : 0; break;
      case FailureUnit::job: n = jobs; break;
    }
    units_.push_back(n);
    total_ += c.rate_per_unit_s * double(n);
    cumulative_.push_back(total_);
    window_s_.push_back(c.observed_window_s);
    expected_.push_back(c.rate_per_unit_s * double(n) * c.observed_window_s);
    shape_.push_back(c.weibull_shape);
    time_varying_ |= c.weibull_shape != 1;
  }
}

// (t / W)^k through the deterministic exp and log, so a seed gives the same bits on every machine.
double FailureProcess::cumulative_hazard(double t_s) const {
  double h = 0;
  for (size_t c = 0; c < shape_.size(); ++c) {
    if (expected_[c] <= 0 || t_s <= 0) continue;
    double u = t_s / window_s_[c];
    h += expected_[c] * (shape_[c] == 1 ? u : det_exp(shape_[c] * det_log(u)));
  }
  return h;
}

int64_t FailureProcess::next_failure_ns(int64_t now_ns, Rng& rng) const {
  if (!time_varying_) return now_ns + next_gap_ns(rng);
  double t0 = double(now_ns) / 1e9, target = cumulative_hazard(t0) + rng.exponential(1.0);
  // Bracket the solution by doubling, then bisect to a nanosecond (or to adjacent doubles).
  double lo = t0, step = 1.0;
  while (cumulative_hazard(t0 + step) < target) {
    lo = t0 + step;
    step *= 2;
    if (step > 1e18) return kNeverNs;  // no failure within any horizon
  }
  double hi = t0 + step;
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
    double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (cumulative_hazard(mid) < target ? lo : hi) = mid;
  }
  return ns_from_seconds(hi, now_ns + 1);
}

FailureProcess::Pick FailureProcess::pick_at(int64_t t_ns, Rng& rng) const {
  if (!time_varying_) return pick(rng);
  // Hazard rate of each class at t: d/dt a (t/W)^k = a k / W (t/W)^(k-1).
  double t = std::max(1e-9, double(t_ns) / 1e9), total = 0;
  std::vector<double> cumulative(shape_.size());
  for (size_t c = 0; c < shape_.size(); ++c) {
    if (expected_[c] > 0) total += expected_[c] * shape_[c] / window_s_[c] * det_exp((shape_[c] - 1) * det_log(t / window_s_[c]));
    cumulative[c] = total;
  }
  double x = rng.uniform() * total;
  size_t cls = std::min<size_t>(static_cast<size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), x) - cumulative.begin()),
                                cumulative.size() - 1);
  while (units_[cls] == 0 || (cls > 0 && cumulative[cls] == cumulative[cls - 1])) --cls;  // skip empty classes
  return {static_cast<uint16_t>(cls), rng.below(units_[cls])};
}

int64_t FailureProcess::next_gap_ns(Rng& rng) const {
  double s = rng.exponential(total_);
  return ns_from_seconds(s, 1);
}

FailureProcess::Pick FailureProcess::pick(Rng& rng) const {
  double x = rng.uniform() * total_;
  auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), x);
  size_t cls = std::min<size_t>(static_cast<size_t>(it - cumulative_.begin()), cumulative_.size() - 1);
  while (units_[cls] == 0 || (cls > 0 && cumulative_[cls] == cumulative_[cls - 1])) --cls;  // skip empty classes
  return {static_cast<uint16_t>(cls), rng.below(units_[cls])};
}

double job_failure_rate_per_s(const std::vector<FailureClass>& classes, uint64_t gpus, uint64_t nodes) {
  double rate = 0;
  for (const auto& c : classes) {
    double units = 1;  // job
    if (c.unit == FailureUnit::gpu) units = double(gpus);
    else if (c.unit == FailureUnit::node) units = double(nodes);
    else if (c.unit == FailureUnit::domain) units = std::ceil(double(nodes) / double(std::max<uint32_t>(c.domain_nodes, 1)));  // domains the job fills
    rate += c.rate_per_unit_s * units;
  }
  return rate;
}

}  // namespace gs::sim
