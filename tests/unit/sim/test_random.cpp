// Deterministic arithmetic and random numbers: the same bits on every machine.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/detmath.h"
#include "runtime/rng.h"
#include "runtime/sim/stats.h"
#include "tests/unit/support/ks.h"

using namespace gs::sim;
using namespace gs;  // the seeded generator and deterministic math live in the runtime core

TEST_CASE("splitmix64 and xoshiro256** match their published test vectors") {
  uint64_t state = 0;
  CHECK(splitmix64(state) == 0xe220a8397b1dcdafull);
  CHECK(splitmix64(state) == 0x6e789e6aa1b965f4ull);
  CHECK(splitmix64(state) == 0x06c45d188009454full);
  Rng rng(std::array<uint64_t, 4>{1, 2, 3, 4});
  for (uint64_t expected : {11520ull, 0ull, 1509978240ull, 1215971899390074240ull, 1216172134540287360ull}) CHECK(rng.next() == expected);
}

TEST_CASE("a seed fixes the stream; streams for different purposes differ") {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    CHECK(x == b.next());
    CHECK(x != c.next());
  }
  CHECK(derive_seed(7, 1) != derive_seed(7, 2));
  CHECK(derive_seed(7, 1) == derive_seed(7, 1));
}

TEST_CASE("fill_uniform_open draws what as many uniform_open calls draw, a redrawn zero included") {
  // State {1, 0, 3, 4}: the first output is rotl(0 * 5, 7) * 9 = 0, a uniform of exactly 0, which
  // uniform_open redraws; the fill must skip it the same way and leave the generator in the same state.
  for (const std::array<uint64_t, 4>& state : {std::array<uint64_t, 4>{1, 0, 3, 4}, std::array<uint64_t, 4>{5, 6, 7, 8}}) {
    Rng a(state), b(state);
    std::vector<double> filled(1001);
    a.fill_uniform_open(filled.data(), filled.size());
    for (double u : filled) {
      CHECK(u > 0);
      CHECK(u < 1);
      CHECK(u == b.uniform_open());
    }
    CHECK(a.next() == b.next());
  }
  Rng zero(std::array<uint64_t, 4>{1, 0, 3, 4});
  CHECK(zero.uniform() == 0);  // the case above really met a zero
}

TEST_CASE("deterministic log, exp, sin and cos stay within a few ulp of the C library") {
  auto ulps = [](double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b) * 0x1p-52, 0x1p-1074); };
  for (double x = 1e-300; x < 1e300; x *= 1.37) CHECK(ulps(det_log(x), std::log(x)) <= 4);
  for (double x = -700; x < 700; x += 0.731) CHECK(ulps(det_exp(x), std::exp(x)) <= 4);
  for (double x = -0.785; x <= 0.785; x += 0.0123) {
    double s, c;
    det_sincos_small(x, s, c);
    CHECK(std::fabs(s - std::sin(x)) <= 4e-16);
    CHECK(std::fabs(c - std::cos(x)) <= 4e-16);
  }
  CHECK(det_log(1.0) == 0.0);
  CHECK(det_exp(0.0) == 1.0);
  CHECK(std::isnan(det_log(-1.0)));
}

// Reference quantiles: mpmath 1.3.0 at 50 digits, solving Phi(z) = p for the double nearest each p
// (through log Phi, or log Phi(-z) = log(1 - p) above the median, so the root is found to all digits).
TEST_CASE("the deterministic normal quantile matches 50-digit values from the far tail to the centre") {
  const std::pair<double, double> cases[] = {
      {1e-300, -37.0470962993611992365}, {1e-20, -9.26234008979840757957}, {1e-10, -6.3613409024040561991},
      {0.001, -3.09023230616781353536},  {0.02, -2.05374891063182304434},  {0.075, -1.43953147093845593495},
      {0.3, -0.524400512708040815969},   {0.7, 0.524400512708040656314},   {0.975, 1.9599639845400538556},
      {0.999, 3.09023230616781327776},   {0.999999, 4.75342430881708776569}};
  for (const auto& c : cases) {  // no structured binding: CAPTURE's lambda would capture it, which clang 14 refuses
    const double p = c.first, z = c.second;
    CAPTURE(p);
    // AS 241's own error is about 1e-16 relative; det_log's few ulp in the tails add at most a few more.
    CHECK(std::fabs(det_normal_quantile(p) - z) <= 1e-15 * std::fabs(z));
  }
  // Antisymmetric to the bit where 1 - p is exact (p a multiple of 2^-10 here): both halves work from the
  // same lower-tail probability.
  for (int k = 1; k < 512; k += 7) CHECK(det_normal_quantile(1.0 - k / 1024.0) == -det_normal_quantile(k / 1024.0));
  CHECK(det_normal_quantile(0.5) == 0.0);
  CHECK(std::isinf(det_normal_quantile(0.0)));
  CHECK(det_normal_quantile(0.0) < 0);
  CHECK(std::isnan(det_normal_quantile(1.5)));
}

constexpr size_t kKsDraws = 100000;

TEST_CASE("normals and lognormals by inversion have the polar method's distribution (Kolmogorov-Smirnov, 1e5 draws)") {
  Rng polar(31), inverse(32);
  std::vector<double> z_polar, z_inverse, l_polar, l_inverse;
  for (size_t i = 0; i < kKsDraws; ++i) {
    z_polar.push_back(polar.normal());
    z_inverse.push_back(inverse.normal_by_inversion());
  }
  for (size_t i = 0; i < kKsDraws; ++i) {
    l_polar.push_back(polar.lognormal(3.0, 0.7));
    l_inverse.push_back(inverse.lognormal_by_inversion(3.0, 0.7));
  }
  using namespace gs::testing;
  const double one = ks_critical_one_sample(kKsDraws), two = ks_critical_two_sample(kKsDraws, kKsDraws);
  auto lognormal_cdf = [](double x) { return standard_normal_cdf(std::log(x / 3.0) / 0.7); };
  CHECK(ks_one_sample(z_inverse, standard_normal_cdf) < one);
  CHECK(ks_one_sample(z_polar, standard_normal_cdf) < one);
  CHECK(ks_two_sample(z_inverse, z_polar) < two);
  CHECK(ks_one_sample(l_inverse, lognormal_cdf) < one);
  CHECK(ks_two_sample(l_inverse, l_polar) < two);
  // One uniform per draw, whatever it turned out to be.
  Rng a(5), b(5);
  for (int i = 0; i < 1000; ++i) a.normal_by_inversion();
  for (int i = 0; i < 1000; ++i) b.uniform_open();
  CHECK(a.next() == b.next());
}

TEST_CASE("distributions have the moments they claim") {
  Rng rng(2024);
  const int n = 200000;
  double sum_exp = 0, sum_norm = 0, sum_norm2 = 0;
  std::vector<double> logn;
  for (int i = 0; i < n; ++i) {
    sum_exp += rng.exponential(0.5);
    double z = rng.normal();
    sum_norm += z;
    sum_norm2 += z * z;
    logn.push_back(rng.lognormal(3.0, 0.7));
  }
  CHECK(sum_exp / n == doctest::Approx(2.0).epsilon(0.02));
  CHECK(sum_norm / n == doctest::Approx(0.0).epsilon(0.01));
  CHECK(sum_norm2 / n == doctest::Approx(1.0).epsilon(0.02));
  std::nth_element(logn.begin(), logn.begin() + n / 2, logn.end());
  CHECK(logn[n / 2] == doctest::Approx(3.0).epsilon(0.02));
  // Weibull with shape 1 is exponential with mean = scale.
  double sum_w = 0;
  for (int i = 0; i < n; ++i) sum_w += rng.weibull(1.0, 4.0);
  CHECK(sum_w / n == doctest::Approx(4.0).epsilon(0.02));
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 70000; ++i) ++hits[rng.below(7)];
  for (int h : hits) CHECK(h == doctest::Approx(10000).epsilon(0.05));
}

TEST_CASE("bootstrap intervals are deterministic for a seed and bracket the mean") {
  std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  Interval a = bootstrap_mean_interval(v, 0.95, 2000, 9), b = bootstrap_mean_interval(v, 0.95, 2000, 9);
  CHECK(a.lower == b.lower);
  CHECK(a.upper == b.upper);
  CHECK(a.lower < mean(v));
  CHECK(a.upper > mean(v));
  CHECK(a.lower > 3.0);
  CHECK(a.upper < 8.0);
}
