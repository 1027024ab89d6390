// The fleet's failure process. Every component class fails as a Poisson process at its sourced rate per
// unit; the fleet is their superposition, so one exponential draw with the summed rate gives the next
// failure anywhere, and a second draw picks the class by its share of the rate and the unit uniformly
// (Cinlar, "Introduction to Stochastic Processes", 1975, superposition and thinning of Poisson processes).
// That costs one event per failure instead of one timer per GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/rng.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

// Failure domains (racks, PDUs, leaf switches) a fleet of sites with these node counts holds.
uint64_t domain_count(uint32_t domain_nodes, const std::vector<uint32_t>& site_nodes);

class FailureProcess {
 public:
  // site_nodes: nodes of each site, in order; a domain class has ceil(nodes / domain_nodes) domains per site.
  FailureProcess(const std::vector<FailureClass>& classes, uint64_t gpus, uint64_t nodes, uint64_t jobs,
                 const std::vector<uint32_t>& site_nodes = {});
  double total_rate_per_s() const { return total_; }
  // Time to the next failure anywhere in the fleet; at least 1 ns. Requires total_rate_per_s() > 0.
  int64_t next_gap_ns(Rng& rng) const;
  struct Pick {
    uint16_t cls = 0;
    uint64_t unit = 0;  // index among the class's units: a GPU, a node, a domain (numbered site by site) or a job
  };
  Pick pick(Rng& rng) const;

  // The same for classes with a Weibull hazard (FailureClass::weibull_shape), ages counted from time 0:
  // the fleet is then a non-homogeneous Poisson process with cumulative hazard H(t) = sum over classes of
  // a (t / W)^k, where a is the class's expected fleet count over its observed window W. The next failure
  // after `now_ns` solves H(t) = H(now) + E with E ~ Exp(1) (inversion of the cumulative hazard; Cinlar 1975, on non-homogeneous Poisson processes), and the
  // class is picked by its share of the hazard rate at that instant. With every shape 1 these draw
  // exactly what next_gap_ns and pick draw.
  int64_t next_failure_ns(int64_t now_ns, Rng& rng) const;
  Pick pick_at(int64_t t_ns, Rng& rng) const;
  bool time_varying() const { return time_varying_; }

 private:
  double cumulative_hazard(double t_s) const;
  std::vector<double> cumulative_;  // running sum of class rate x units
  std::vector<uint64_t> units_;
  std::vector<double> expected_, window_s_, shape_;  // per class: a, W, k of the cumulative hazard
  double total_ = 0;
  bool time_varying_ = false;
};

// Expected interruptions per second of one job that holds `gpus` GPUs on `nodes` nodes: the MTBF prior
// a checkpoint policy may assume, because it follows from the declared data, not from the realised trace.
double job_failure_rate_per_s(const std::vector<FailureClass>& classes, uint64_t gpus, uint64_t nodes);

}  // namespace gs::sim
