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
  unsigned passes = 1;  // evaluations of each draw (monte_carlo_summary: 2 when a bracket missed, 4 without a usable pilot)
};

// Percentiles by linear interpolation between order statistics (Hyndman & Fan type 7), found by
// selection (linear time), not by sorting.
Summary summarize(std::vector<double> values, size_t bins = 20);

// The input rows of Monte Carlo chunk `chunk` (row-major, `n_inputs` each): the base point with every
// uncertain input drawn from the chunk's stream (derive_seed(seed, chunk)), row after row, input after
// input. `per_draw`: one Distribution::sample call per input and row, the former fill, kept as the
// benchmarks' baseline; otherwise the uniforms in one loop and each column through its inverse CDF in
// another (vectorized), the same values bit for bit.
void fill_draws(double* in, size_t rows, size_t n_inputs, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                uint64_t seed, size_t chunk, bool per_draw = false);

// Samples every uncertain input independently; every other input stays at `base`. Returns one vector of
// samples per cone output. Deterministic for a seed whatever the thread count.
std::vector<std::vector<double>> monte_carlo(const CompiledCone& cone, const std::vector<double>& base,
                                             const std::vector<UncertainInput>& inputs, size_t samples,
                                             uint64_t seed, unsigned threads);

// The summary of cone output `output` over `samples` draws that never holds the draws, in one pass:
// each draw is evaluated once (summarize(monte_carlo(...)[output]) evaluates it once too, but holds it).
//   - A pilot, the run's first `pilot_rows` draws, is held and places a bracket around each percentile
//     (the pilot's estimate +- `bracket_sd` standard deviations of its rank); the rest of the run keeps
//     only the values inside the brackets, counts those below, and per-chunk moments merged in chunk
//     order. The percentiles, min and max are therefore the sample array's exactly; mean and sd differ
//     by summation order (1e-12 relative).
//   - A bracket that misses its order statistic (about 1e-11 at 7 sd) costs one more pass, located by a
//     65,536-bin histogram over the pilot's range, and the answer stays exact; `passes` says so.
//   - The display histogram comes from that fine histogram: a fine bin straddling a display edge is split
//     in proportion to where the edge falls in its values' range, so each display count is within the
//     counts of the two fine bins at its edges of the exact count (totals exact). With at most
//     `pilot_rows` draws everything is held and the summary is summarize()'s.
// Memory: the pilot, plus about 12 x bracket_sd x samples / sqrt(pilot_rows) held values (1e8 draws: about
// 9 MB), not the 800 MB of a sample array.
struct StreamingOptions {
  size_t pilot_rows = size_t(1) << 20;
  double bracket_sd = 7;
  // Most values outside the pilot's range that the pass keeps (expected: about 2 x samples / pilot_rows);
  // past it the summary falls back to three exact passes. 0: max(pilot_rows, 65536).
  size_t max_outside = 0;
  // true: each input of each row drawn by its own Distribution::sample call, the former fill, kept as the
  // benchmarks' baseline (bench/mc_draws.sh). The default draws a chunk's uniforms in one loop and maps
  // each input's column in another: the same draws bit for bit, so the same summary.
  bool per_draw_baseline = false;
};
Summary monte_carlo_summary(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                            size_t output, size_t samples, uint64_t seed, unsigned threads, size_t bins = 20,
                            const StreamingOptions& options = {});

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
