// Seeded pseudo-random numbers: xoshiro256** (Blackman and Vigna 2018) seeded through splitmix64, with
// every distribution sampled here from uniform doubles. std::random_device is never used, and neither are
// the std:: distributions, whose algorithms differ between standard libraries. The simulator, Monte Carlo,
// Sobol and verification all draw from this one generator.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gs {

uint64_t splitmix64(uint64_t& state);
// A well-mixed 64-bit value for (seed, stream): independent streams for independent processes, so that
// changing a policy never changes the failure trace it faces.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed);
  explicit Rng(const std::array<uint64_t, 4>& state);  // a raw state, as the published test vectors use
  uint64_t next();
  double uniform();        // [0, 1), 53 random bits
  double uniform_open();   // (0, 1)
  // out[0..n) = n calls of uniform_open(), the same stream, in one loop (no call per draw; Monte Carlo fills).
  void fill_uniform_open(double* out, size_t n);
  uint64_t below(uint64_t n);  // uniform in [0, n), unbiased (Lemire 2019, with rejection); n > 0
  double exponential(double rate);  // mean 1/rate
  double weibull(double shape, double scale);
  double normal();  // Marsaglia's polar method
  double lognormal(double median, double sigma);  // median * exp(sigma * N(0, 1))
  // N(0, 1) by inversion: one uniform through det_normal_quantile. No rejection and no spare carried, so
  // every draw takes exactly one value of the stream (the polar method above takes a varying number).
  double normal_by_inversion();
  double lognormal_by_inversion(double median, double sigma);  // median * exp(sigma * normal_by_inversion())
  // The largest |z| of n independent N(0, 1) variates, drawn directly from one uniform by inverting the
  // maximum's distribution (rng.cpp says why that is the same distribution); 0 for n = 0.
  double max_abs_normal(uint32_t n);

 private:
  uint64_t s_[4];
  double spare_normal_ = 0;
  bool has_spare_ = false;
};

}  // namespace gs
