#include "runtime/rng.h"

#include <cmath>

#include "runtime/detmath.h"

namespace gs {
namespace {
inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t s = seed ^ (stream * 0xD1B54A32D192ED03ull);
  splitmix64(s);
  return splitmix64(s);
}

Rng::Rng(uint64_t seed) {
  uint64_t st = seed;
  for (auto& w : s_) w = splitmix64(st);
}

Rng::Rng(const std::array<uint64_t, 4>& state) {
  for (int i = 0; i < 4; ++i) s_[i] = state[i];
}

namespace {
// One xoshiro256** step on a state held in registers by the caller.
inline uint64_t xoshiro_next(uint64_t s[4]) {
  const uint64_t result = rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}
inline double to_unit(uint64_t x) { return double(x >> 11) * 0x1.0p-53; }
}  // namespace

uint64_t Rng::next() { return xoshiro_next(s_); }

double Rng::uniform() { return to_unit(next()); }

void Rng::fill_uniform_open(double* out, size_t n) {
  uint64_t s[4] = {s_[0], s_[1], s_[2], s_[3]};  // a local copy the compiler keeps in registers
  for (size_t i = 0; i < n;)
    if (const double u = to_unit(xoshiro_next(s)); u > 0) out[i++] = u;  // 0 is redrawn, as uniform_open() does
  for (int i = 0; i < 4; ++i) s_[i] = s[i];
}

double Rng::uniform_open() {
  for (;;) {
    double u = uniform();
    if (u > 0) return u;
  }
}

uint64_t Rng::below(uint64_t n) {
  unsigned __int128 m = (unsigned __int128)next() * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = (unsigned __int128)next() * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::exponential(double rate) { return -det_log(uniform_open()) / rate; }

double Rng::weibull(double shape, double scale) {
  return scale * det_exp(det_log(-det_log(uniform_open())) / shape);
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  for (;;) {
    double u = 2.0 * uniform() - 1.0, v = 2.0 * uniform() - 1.0;
    double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    double f = std::sqrt(-2.0 * det_log(s) / s);  // sqrt is correctly rounded by IEEE-754
    spare_normal_ = v * f;
    has_spare_ = true;
    return u * f;
  }
}

double Rng::lognormal(double median, double sigma) { return median * det_exp(sigma * normal()); }

double Rng::normal_by_inversion() { return det_normal_quantile(uniform_open()); }

double Rng::lognormal_by_inversion(double median, double sigma) { return median * det_exp(sigma * normal_by_inversion()); }

// Why one uniform gives the maximum of n normals' magnitudes. For independent Z_1..Z_n,
//   P(max_i |Z_i| <= x) = prod_i P(|Z_i| <= x) = (2 Phi(x) - 1)^n,
// a continuous, strictly increasing CDF on x >= 0. Inversion: for U uniform on (0, 1), the x solving
// (2 Phi(x) - 1)^n = U has exactly that distribution. Solving, 2 Phi(x) - 1 = U^(1/n), and with
// t = 1 - U^(1/n) (the chance that one |Z| exceeds x) and the normal's symmetry, x = -Phi^-1(t / 2).
// Only the arithmetic rounds. For n a power of two, U^(1/n) is repeated square roots, each correctly
// rounded (n = 8 GPUs per node: three); otherwise exp(log(U) / n). t is formed without cancellation:
// 1 - U = (1 - v)(1 + v + ... + v^(n-1)) for v = U^(1/n), and 1 - U is exact for U >= 1/2 (Sterbenz), so
// t = (1 - U) / (1 + v + ... + v^(n-1)) keeps its relative accuracy as U -> 1, where the largest maxima
// (the slow GPUs that matter) come from; Phi^-1 is then taken of a small lower-tail probability, where
// det_normal_quantile is accurate.
double Rng::max_abs_normal(uint32_t n) {
  if (n == 0) return 0;
  const double u = uniform_open();
  double v = u;
  if ((n & (n - 1)) == 0)
    for (uint32_t m = n; m > 1; m >>= 1) v = std::sqrt(v);
  else
    v = det_exp(det_log(u) / double(n));
  double sum = 0, power = 1;
  for (uint32_t k = 0; k < n; ++k) {
    sum += power;
    power *= v;
  }
  return -det_normal_quantile(0.5 * ((1.0 - u) / sum));
}

}  // namespace gs
