// Monte Carlo propagation of input uncertainty through a compiled cone, and Sobol sensitivity indices.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/jit/jit.h"
#include "runtime/distribution.h"

namespace gs {

// Most model evaluations one uncertainty or sensitivity run may ask for (800 MB of results); more is
// refused as bad input before any work starts.
constexpr size_t kMaxSamples = 100'000'000;

struct UncertainInput {
  size_t column = 0;  // index into the cone's input array
  Distribution dist;
};

struct Summary {
  size_t samples = 0;
  size_t nonfinite = 0;  // NaN or infinite outputs, excluded from the statistics and reported
  double mean = 0, sd = 0, p5 = 0, p50 = 0, p95 = 0, min = 0, max = 0;
  std::vector<double> bin_edges;   // histogram over [min, max]
  std::vector<size_t> bin_counts;
};

// Percentiles by linear interpolation between order statistics (Hyndman & Fan type 7), found by
// selection (linear time), not by sorting.
Summary summarize(std::vector<double> values, size_t bins = 20);

// Samples every uncertain input independently; every other input stays at `base`. Returns one vector of
// samples per cone output. Deterministic for a seed whatever the thread count.
std::vector<std::vector<double>> monte_carlo(const CompiledCone& cone, const std::vector<double>& base,
                                             const std::vector<UncertainInput>& inputs, size_t samples,
                                             uint64_t seed, unsigned threads);

// The summary of cone output `output` over `samples` draws that never holds the draws: it re-draws
// the same seeded samples in three streaming passes and gives summarize(monte_carlo(...)[output])'s
// percentiles, min, max and histogram exactly (mean and sd to rounding). Memory is O(65536 + samples /
// 4096) plus the values of at most six histogram bins; time is about three Monte Carlo runs.
Summary monte_carlo_summary(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                            size_t output, size_t samples, uint64_t seed, unsigned threads, size_t bins = 20);

// Randomized quasi-Monte Carlo (Owen 2013, "Monte Carlo theory, methods and examples", ch. 17): the
// uncertain inputs are driven by a Halton point set in as many dimensions (radical inverses in the first
// primes), randomized by `replicates` independent Cranley-Patterson shifts drawn from `seed`, each
// mapped through the inputs' inverse CDFs. The pooled points give the summary; the spread of the
// replicates' own percentiles gives each percentile's standard error, so the answer states its error.
// Needs far fewer evaluations than plain Monte Carlo for the same error on smooth models, which is what
// lets `resolve` state an interval without compiling its cone. Deterministic for a seed whatever the
// thread count.
struct RqmcSummary {
  Summary pooled;
  size_t replicates = 0;
  double p5_se = 0, p50_se = 0, p95_se = 0;  // standard errors of the pooled percentiles (NaN: one replicate)
};
constexpr size_t kRqmcReplicates = 8;
RqmcSummary rqmc_summary(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                         size_t output, size_t samples, uint64_t seed, unsigned threads);
// Coordinate `dim` of Halton point `index` (index >= 1): the radical inverse of index in the dim-th prime.
double halton(uint64_t index, size_t dim);

struct SobolIndices {
  std::vector<double> first;  // S_i, Saltelli et al. (2010) estimator
  std::vector<double> total;  // S_Ti, Jansen (1999) estimator
  double variance = 0;
  size_t evaluations = 0;
};

// First- and total-order indices of cone output `output` over the uncertain inputs, from N base
// samples (N·(k+2) evaluations).
SobolIndices sobol(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                   size_t output, size_t n, uint64_t seed, unsigned threads);

}  // namespace gs
