// The slowest-GPU maximum a job keeps in a segment tree, and the static slowdowns it holds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/detmath.h"
#include "runtime/rng.h"
#include "runtime/sim/stragglers.h"
#include "tests/unit/support/ks.h"

using namespace gs::sim;

TEST_CASE("the segment tree's maximum matches a scan after every update, early exit included") {
  gs::Rng rng(42);
  const size_t n = 37;  // not a power of two: padding leaves stay 0
  MaxTree tree(n);
  std::vector<double> values(n, 0.0);
  for (int step = 0; step < 5000; ++step) {
    size_t i = rng.below(n);
    // Often a value already present elsewhere, so updates that leave the maximum unchanged are common.
    double v = rng.below(4) == 0 ? 0.0 : 1.0 + double(rng.below(8)) / 8.0;
    values[i] = v;
    tree.set(i, v);
    REQUIRE(tree.max() == *std::max_element(values.begin(), values.end()));
  }
}

TEST_CASE("a node's static slowdown is its slowest GPU's, drawn from the same normals") {
  const double sigma = 0.05;
  gs::Rng a(9), b(9);
  std::vector<double> nodes = sample_node_slowdowns(200, 8, sigma, a);
  for (double node : nodes) {
    double slowest = 1.0;  // per GPU, as the model states it: max over GPUs of exp(sigma |z|)
    for (int g = 0; g < 8; ++g) slowest = std::max(slowest, gs::det_exp(sigma * std::fabs(b.normal())));
    CHECK(node == slowest);  // the same bits
  }
  gs::Rng c(9);
  CHECK(sample_node_slowdowns(3, 8, 0.0, c) == std::vector<double>{1.0, 1.0, 1.0});
}

// The static slowdowns take the largest |z| of eight normals (polar method) per node; Rng::max_abs_normal
// draws it from one uniform by inverting the maximum's CDF. Both must follow P(max |z| <= x) = erf(x/sqrt2)^n.
TEST_CASE("the largest |z| of n normals drawn by inversion has the distribution of the maximum of n draws (Kolmogorov-Smirnov, 1e5)") {
  using namespace gs::testing;
  const size_t draws = 100000;
  for (uint32_t n : {8u, 1u, 3u}) {  // 8 GPUs per node (three square roots); 1; 3 (the exp-log root)
    CAPTURE(n);
    gs::Rng direct(101 + n), polar(202 + n);
    std::vector<double> by_inversion, by_maximum;
    for (size_t i = 0; i < draws; ++i) {
      by_inversion.push_back(direct.max_abs_normal(n));
      double largest = 0;
      for (uint32_t g = 0; g < n; ++g) largest = std::max(largest, std::fabs(polar.normal()));
      by_maximum.push_back(largest);
    }
    auto cdf = [n](double x) { return std::pow(std::erf(x / std::sqrt(2.0)), double(n)); };
    CHECK(ks_one_sample(by_inversion, cdf) < ks_critical_one_sample(draws));
    CHECK(ks_one_sample(by_maximum, cdf) < ks_critical_one_sample(draws));
    CHECK(ks_two_sample(by_inversion, by_maximum) < ks_critical_two_sample(draws, draws));
  }
  gs::Rng e(1);
  CHECK(e.max_abs_normal(0) == 0.0);
}
