#include "runtime/sim/failures.h"

#include <algorithm>
#include <cmath>

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
  }
}

int64_t FailureProcess::next_gap_ns(Rng& rng) const {
  double s = rng.exponential(total_);
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(s * 1e9)));
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

double young_interval_s(double delta_s, double mtbf_s) { return std::sqrt(2.0 * delta_s * mtbf_s); }

double daly_interval_s(double delta_s, double mtbf_s) {
  if (delta_s >= 2.0 * mtbf_s) return mtbf_s;
  double r = delta_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * delta_s * mtbf_s) * (1.0 + std::sqrt(r) / 3.0 + r / 9.0) - delta_s;
}

}  // namespace gs::sim
