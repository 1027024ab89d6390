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
  for (k >>= 1; k >= 1; k >>= 1) {
    double m = std::max(tree_[2 * k], tree_[2 * k + 1]);
    if (m == tree_[k]) break;  // the maxima above are unchanged too
    tree_[k] = m;
  }
}

std::vector<double> sample_node_slowdowns(uint64_t nodes, uint32_t gpus_per_node, double sigma, Rng& rng) {
  std::vector<double> out(nodes, 1.0);
  if (sigma <= 0) return out;
  // The largest of exp(sigma |z|) over the node's GPUs is exp(sigma max |z|): one exponential per node
  // instead of one per GPU, drawing the same normals in the same order. det_exp is monotone within one
  // step of its range reduction (arguments below 0.35, i.e. any realistic sigma), so the bits are the same;
  // beyond it the two could differ in the last place.
  for (auto& v : out) {
    double largest = 0;
    for (uint32_t g = 0; g < gpus_per_node; ++g) largest = std::max(largest, std::fabs(rng.normal()));
    v = std::max(v, det_exp(sigma * largest));
  }
  return out;
}

}  // namespace gs::sim
