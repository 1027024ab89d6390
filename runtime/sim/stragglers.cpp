#include "runtime/sim/stragglers.h"

#include <algorithm>
#include <cmath>

#include "runtime/detmath.h"

namespace gs::sim {

MaxTree::MaxTree(size_t n) : size_(1) {
  while (size_ < n) size_ <<= 1;
  tree_.assign(2 * size_, 0.0);
}

void MaxTree::set(size_t i, double v) {
  size_t k = i + size_;
  tree_[k] = v;
  for (k >>= 1; k >= 1; k >>= 1) tree_[k] = std::max(tree_[2 * k], tree_[2 * k + 1]);
}

std::vector<double> sample_node_slowdowns(uint64_t nodes, uint32_t gpus_per_node, double sigma, Rng& rng) {
  std::vector<double> out(nodes, 1.0);
  if (sigma <= 0) return out;
  for (auto& v : out)
    for (uint32_t g = 0; g < gpus_per_node; ++g) v = std::max(v, det_exp(sigma * std::fabs(rng.normal())));
  return out;
}

}  // namespace gs::sim
