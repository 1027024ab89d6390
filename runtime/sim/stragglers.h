// Per-device heterogeneity. A synchronous step ends when its slowest participant does, so a job's step
// time scales with the largest slowdown among its active GPUs. Each node carries the slowdown of its
// slowest GPU (fixed for the run) times any transient episode it is in; a job keeps the maximum over its
// node slots in a segment tree, updated in O(log n) when a node is swapped, dropped or slowed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/rng.h"

namespace gs::sim {

class MaxTree {
 public:
  explicit MaxTree(size_t n = 0);
  void set(size_t i, double v);  // v = 0 removes slot i from the maximum
  double max() const { return tree_.empty() ? 0 : tree_[1]; }

 private:
  size_t size_ = 0;
  std::vector<double> tree_;
};

// Static slowdown of each of `nodes` nodes: the maximum over its GPUs of exp(sigma * |N(0,1)|), so a
// GPU is never faster than nominal and sigma = 0 gives exactly 1 everywhere.
std::vector<double> sample_node_slowdowns(uint64_t nodes, uint32_t gpus_per_node, double sigma, Rng& rng);

}  // namespace gs::sim
