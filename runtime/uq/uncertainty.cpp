#include "runtime/uq/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "runtime/rng.h"
#include "runtime/uq/parallel.h"

namespace gs {

namespace {

// Percentile p of n sorted values by linear interpolation between order statistics (Hyndman & Fan
// type 7); `at(k)` returns the k-th smallest (0-based).
template <class At>
double percentile(size_t n, double p, At at) {
  const double h = double(n - 1) * p;
  const size_t lo = size_t(std::floor(h));
  return lo + 1 < n ? at(lo) + (h - double(lo)) * (at(lo + 1) - at(lo)) : at(lo);
}

constexpr double kQuantiles[3] = {0.05, 0.5, 0.95};

// The order statistics the three percentiles read, ascending and unique.
std::vector<size_t> needed_ranks(size_t n) {
  std::vector<size_t> ranks;
  for (double p : kQuantiles) {
    const size_t lo = size_t(std::floor(double(n - 1) * p));
    ranks.push_back(lo);
    if (lo + 1 < n) ranks.push_back(lo + 1);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

size_t bin_of(double v, double lo, double hi, size_t bins) {
  return std::min(hi > lo ? size_t((v - lo) / (hi - lo) * double(bins)) : 0, bins - 1);
}

void fill_histogram(Summary& s, size_t bins) {
  s.bin_counts.assign(bins, 0);
  for (size_t i = 0; i <= bins; ++i) s.bin_edges.push_back(s.min + (s.max - s.min) * double(i) / double(bins));
}

// The values of the wanted ranks, each found by selection inside the fine bin that holds it: `wanted` maps a
// bin to (rank overall, rank within the bin), `held` holds each wanted bin's values. Both summaries use it.
void select_ranks(const std::map<size_t, std::vector<std::pair<size_t, size_t>>>& wanted,
                  std::map<size_t, std::vector<double>>& held, std::map<size_t, double>& order) {
  for (const auto& [bin, ranks] : wanted)
    for (const auto& [rank, within] : ranks) {
      auto& v = held[bin];
      std::nth_element(v.begin(), v.begin() + long(within), v.end());
      order[rank] = v[within];
    }
}


}  // namespace

// Selection instead of a full sort: each needed order statistic is found by nth_element on what is
// left above the previous one, so the summary is linear in the samples and gives the sort's values.
Summary summarize(std::vector<double> values, size_t bins) {
  Summary s;
  s.samples = values.size();
  auto finite_end = std::partition(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  s.nonfinite = size_t(values.end() - finite_end);
  values.erase(finite_end, values.end());
  if (values.empty()) return s;
  const size_t n = values.size();
  std::map<size_t, double> order;
  size_t from = 0;
  for (size_t r : needed_ranks(n)) {
    std::nth_element(values.begin() + long(from), values.begin() + long(r), values.end());
    order[r] = values[r];
    from = r + 1;
  }
  auto at = [&](size_t k) { return order.at(k); };
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo, s.max = *hi;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / double(n);
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = n > 1 ? std::sqrt(ss / double(n - 1)) : 0;
  s.p5 = percentile(n, 0.05, at), s.p50 = percentile(n, 0.5, at), s.p95 = percentile(n, 0.95, at);
  fill_histogram(s, bins);
  for (double v : values) ++s.bin_counts[bin_of(v, s.min, s.max, bins)];
  return s;
}

namespace {

// Writes `rows` copies of the base point; the caller then overwrites the uncertain columns.
void fill_base(double* in, size_t rows, const std::vector<double>& base) {
  for (size_t r = 0; r < rows; ++r) std::memcpy(in + r * base.size(), base.data(), base.size() * sizeof(double));
}

}  // namespace

// The uniforms in one loop, in the order row after row, input after input (the stream that one
// Distribution::sample call per input and row draws), then each input's column through its inverse CDF
// in one loop (Distribution::quantiles): the same inputs, bit for bit, as `per_draw`.
void fill_draws(double* in, size_t rows, size_t n_inputs, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                uint64_t seed, size_t chunk, bool per_draw) {
  fill_base(in, rows, base);
  Rng rng(derive_seed(seed, chunk));  // one stream per chunk: independent of thread scheduling
  if (per_draw) {
    for (size_t r = 0; r < rows; ++r)
      for (const auto& u : inputs) in[r * n_inputs + u.column] = u.dist.sample(rng);
    return;
  }
  const size_t k = inputs.size();
  thread_local std::vector<double> uniforms, column;  // a worker's buffers, kept across its chunks
  uniforms.resize(rows * k), column.resize(rows);
  rng.fill_uniform_open(uniforms.data(), uniforms.size());
  for (size_t i = 0; i < k; ++i) {
    for (size_t r = 0; r < rows; ++r) column[r] = uniforms[r * k + i];
    inputs[i].dist.quantiles(column.data(), rows);
    for (size_t r = 0; r < rows; ++r) in[r * n_inputs + inputs[i].column] = column[r];
  }
}

namespace {

// Every Monte Carlo draw's output `output`, chunk by chunk: consume(chunk, first_row, values, rows) runs
// on worker threads. The draws of a chunk come from a stream seeded by the chunk index, so a second
// pass over the same seed sees the same values whatever the thread count.
// Chunks [first_chunk, end_chunk) only, when given: the draws the whole run makes in those chunks.
void for_each_draw(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs, size_t samples,
                   uint64_t seed, unsigned threads, const std::function<void(const RowBlock&)>& consume, size_t first_chunk = 0,
                   size_t end_chunk = SIZE_MAX, bool per_draw = false) {
  parallel_evaluate_chunks(
      cone, samples, first_chunk, end_chunk, threads,
      [&](RowBlock& b) { fill_draws(b.inputs, b.rows, cone.n_inputs, base, inputs, seed, b.chunk, per_draw); }, consume);
}

}  // namespace

std::vector<std::vector<double>> monte_carlo(const CompiledCone& cone, const std::vector<double>& base,
                                             const std::vector<UncertainInput>& inputs, size_t samples,
                                             uint64_t seed, unsigned threads) {
  std::vector<std::vector<double>> out(cone.n_outputs, std::vector<double>(samples));
  for_each_draw(cone, base, inputs, samples, seed, threads, [&](const RowBlock& b) {
    for (size_t r = 0; r < b.rows; ++r)
      for (size_t o = 0; o < cone.n_outputs; ++o) out[o][b.first_row + r] = b.outputs[r * cone.n_outputs + o];
  });
  return out;
}

// The exact summary without a pilot (when the pilot has no finite value or the run strays far outside
// its range): three passes over the same seeded draws, none of which keeps them:
//   1. count, non-finite count, min, max and per-chunk sums (summed in chunk order: deterministic);
//   2. a fine histogram of kFineBins bins over [min, max] with each bin's own min and max, the display
//      histogram, and per-chunk sums of squared deviations from the mean;
//   3. only when a needed order statistic lies in a bin whose values differ: that bin's values, from
//      which nth_element picks it exactly.
// Binning is monotone in the value, so the k-th smallest value lies in the bin where the cumulative
// count passes k; the result is the sorting summary's, with sums in another order (mean and sd agree
// to rounding). Memory: O(kFineBins + chunks + the largest needed bin), not O(samples).
namespace {

Summary summary_in_three_passes(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                                size_t output, size_t samples, uint64_t seed, unsigned threads, size_t bins) {
  constexpr size_t kFineBins = 1 << 16;
  const size_t chunks = (samples + kChunkRows - 1) / kChunkRows, n_out = cone.n_outputs;
  auto value = [&](const RowBlock& b, size_t r) { return b.outputs[r * n_out + output]; };
  Summary s;
  s.samples = samples;
  s.passes = 2;
  std::vector<double> chunk_sum(chunks, 0.0), chunk_min(chunks, INFINITY), chunk_max(chunks, -INFINITY);
  std::vector<size_t> chunk_finite(chunks, 0);
  for_each_draw(cone, base, inputs, samples, seed, threads, [&](const RowBlock& b) {
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    size_t finite = 0;
    for (size_t r = 0; r < b.rows; ++r)
      if (const double v = value(b, r); std::isfinite(v)) sum += v, lo = std::min(lo, v), hi = std::max(hi, v), ++finite;
    chunk_sum[b.chunk] = sum, chunk_min[b.chunk] = lo, chunk_max[b.chunk] = hi, chunk_finite[b.chunk] = finite;
  });
  size_t n = 0;
  double sum = 0;
  s.min = INFINITY, s.max = -INFINITY;
  for (size_t c = 0; c < chunks; ++c)
    n += chunk_finite[c], sum += chunk_sum[c], s.min = std::min(s.min, chunk_min[c]), s.max = std::max(s.max, chunk_max[c]);
  s.nonfinite = samples - n;
  if (n == 0) {
    s.min = s.max = 0;
    return s;
  }
  s.mean = sum / double(n);
  fill_histogram(s, bins);

  std::vector<size_t> fine(kFineBins, 0);
  std::vector<double> fine_min(kFineBins, INFINITY), fine_max(kFineBins, -INFINITY), chunk_ss(chunks, 0.0);
  std::mutex merge;
  for_each_draw(cone, base, inputs, samples, seed, threads, [&](const RowBlock& b) {
    double ss = 0;
    for (size_t r = 0; r < b.rows; ++r)
      if (const double v = value(b, r); std::isfinite(v)) ss += (v - s.mean) * (v - s.mean);
    chunk_ss[b.chunk] = ss;
    std::lock_guard<std::mutex> lock(merge);
    for (size_t r = 0; r < b.rows; ++r) {
      const double v = value(b, r);
      if (!std::isfinite(v)) continue;
      const size_t f = bin_of(v, s.min, s.max, kFineBins);
      ++fine[f], fine_min[f] = std::min(fine_min[f], v), fine_max[f] = std::max(fine_max[f], v);
      ++s.bin_counts[bin_of(v, s.min, s.max, bins)];
    }
  });
  double ss = 0;
  for (double x : chunk_ss) ss += x;
  s.sd = n > 1 ? std::sqrt(ss / double(n - 1)) : 0;

  // Where each needed order statistic lies: its bin and its rank among the bin's values.
  std::map<size_t, double> order;
  std::map<size_t, std::vector<std::pair<size_t, size_t>>> wanted;  // bin -> (rank, rank within bin)
  size_t below = 0, f = 0;
  for (size_t r : needed_ranks(n)) {
    while (below + fine[f] <= r) below += fine[f++];
    if (fine_min[f] == fine_max[f]) order[r] = fine_min[f];  // every value of the bin is this one
    else wanted[f].emplace_back(r, r - below);
  }
  if (!wanted.empty()) {
    std::map<size_t, std::vector<double>> held;
    for (const auto& [bin, ranks] : wanted) held[bin].reserve(fine[bin]);
    ++s.passes;
    for_each_draw(cone, base, inputs, samples, seed, threads, [&](const RowBlock& b) {
      std::lock_guard<std::mutex> lock(merge);
      for (size_t r = 0; r < b.rows; ++r) {
        const double v = value(b, r);
        if (!std::isfinite(v)) continue;
        if (auto it = held.find(bin_of(v, s.min, s.max, kFineBins)); it != held.end()) it->second.push_back(v);
      }
    });
    select_ranks(wanted, held, order);
  }
  auto at = [&](size_t k) { return order.at(k); };
  s.p5 = percentile(n, 0.05, at), s.p50 = percentile(n, 0.5, at), s.p95 = percentile(n, 0.95, at);
  return s;
}

}  // namespace

namespace {

// Count, sum, extremes and sum of squared deviations of one chunk's finite values (two passes over the
// chunk, which is in memory), merged across chunks in chunk order: the same whatever the thread count.
struct Moments {
  size_t n = 0;
  double sum = 0, mean = 0, m2 = 0, min = INFINITY, max = -INFINITY;

  static Moments of(const double* v, size_t stride, size_t rows) {
    Moments m;
    for (size_t r = 0; r < rows; ++r)
      if (const double x = v[r * stride]; std::isfinite(x)) ++m.n, m.sum += x, m.min = std::min(m.min, x), m.max = std::max(m.max, x);
    if (m.n == 0) return m;
    m.mean = m.sum / double(m.n);
    for (size_t r = 0; r < rows; ++r)
      if (const double x = v[r * stride]; std::isfinite(x)) m.m2 += (x - m.mean) * (x - m.mean);
    return m;
  }
  // Chan, Golub & LeVeque (1979): the pooled sum of squared deviations of two groups.
  void merge(const Moments& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double na = double(n), nb = double(o.n), d = o.mean - mean;
    m2 += o.m2 + d * d * na * nb / (na + nb);
    mean += d * nb / (na + nb);
    n += o.n, sum += o.sum, min = std::min(min, o.min), max = std::max(max, o.max);
  }
};

// The values of [lo, hi] and how many lie below lo: the order statistics of ranks below..below+held-1.
struct Bracket {
  double lo = 0, hi = 0;
  size_t below = 0;
  std::vector<double> held;
};

// What the one pass keeps besides the per-chunk moments, filled under one lock per chunk.
struct OnePassTally {
  static constexpr size_t kFineBins = 1 << 16;
  double lo = 0, hi = 0;  // the pilot's finite range: the fine histogram's
  // A fine bin's count and extremes side by side: one cache line per value instead of three.
  struct FineBin {
    size_t count = 0;
    double min = INFINITY, max = -INFINITY;
  };
  std::vector<FineBin> fine = std::vector<FineBin>(kFineBins);
  std::vector<double> outside;  // finite values outside [lo, hi]
  size_t outside_cap = 0;
  bool overflow = false;  // more values outside than outside_cap: the pilot did not represent the run
  std::vector<Bracket> brackets;

  void add(const double* v, size_t stride, size_t rows) {
    for (size_t r = 0; r < rows; ++r) {
      const double x = v[r * stride];
      if (!std::isfinite(x)) continue;
      for (Bracket& b : brackets) {
        if (x < b.lo) ++b.below;
        else if (x <= b.hi) b.held.push_back(x);
      }
      if (x < lo || x > hi) {
        if (outside.size() < outside_cap) outside.push_back(x);
        else overflow = true;
        continue;
      }
      FineBin& f = fine[bin_of(x, lo, hi, kFineBins)];
      ++f.count, f.min = std::min(f.min, x), f.max = std::max(f.max, x);
    }
  }
  // An empty tally with the same range, cap and bracket bounds.
  OnePassTally empty_like() const {
    OnePassTally t;
    t.lo = lo, t.hi = hi, t.outside_cap = outside_cap;
    for (const Bracket& b : brackets) t.brackets.push_back({b.lo, b.hi, 0, {}});
    return t;
  }
  // Adds another tally of the same range: counts and extremes add up, held values are pooled (the order
  // of held values does not matter: they are selected from), so the result is the one tally's whatever
  // worker saw which chunk. Overflow is the one tally's too: more than outside_cap values outside in all.
  void merge(OnePassTally&& o) {
    for (size_t f = 0; f < kFineBins; ++f)
      fine[f].count += o.fine[f].count, fine[f].min = std::min(fine[f].min, o.fine[f].min), fine[f].max = std::max(fine[f].max, o.fine[f].max);
    overflow = overflow || o.overflow || outside.size() + o.outside.size() > outside_cap;
    if (!overflow) outside.insert(outside.end(), o.outside.begin(), o.outside.end());
    for (size_t i = 0; i < brackets.size(); ++i) {
      brackets[i].below += o.brackets[i].below;
      brackets[i].held.insert(brackets[i].held.end(), o.brackets[i].held.begin(), o.brackets[i].held.end());
    }
  }
};

// One tally per worker: a worker takes a free one for each chunk (one short lock) instead of filling a
// shared tally under a lock, which serialized the workers. Merged into `into` when the pass is over.
class TallyPool {
 public:
  explicit TallyPool(const OnePassTally& prototype) : prototype_(prototype) {}
  OnePassTally* take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return all_.emplace_back(std::make_unique<OnePassTally>(prototype_.empty_like())).get();
    OnePassTally* t = free_.back();
    free_.pop_back();
    return t;
  }
  void give(OnePassTally* t) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(t);
  }
  void merge_into(OnePassTally& into) {
    for (auto& t : all_) into.merge(std::move(*t));
    all_.clear(), free_.clear();
  }

 private:
  const OnePassTally& prototype_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<OnePassTally>> all_;
  std::vector<OnePassTally*> free_;
};

// Brackets around the three percentiles from the pilot's sorted finite values: the pilot's rank estimate
// +- width_sd standard deviations of a binomial rank (sqrt(m p (1 - p))), plus one order statistic.
std::vector<Bracket> place_brackets(const std::vector<double>& sorted, double width_sd) {
  std::vector<Bracket> out;
  const double m = double(sorted.size());
  for (double p : kQuantiles) {
    const double centre = (m - 1) * p, half = width_sd * std::sqrt(m * p * (1 - p)) + 1;
    const auto at = [&](double rank) { return sorted[size_t(std::clamp(rank, 0.0, m - 1))]; };
    out.push_back({at(std::floor(centre - half)), at(std::ceil(centre + half)), 0, {}});
  }
  return out;
}

// The display histogram over [s.min, s.max] from the fine histogram and the values outside its range.
// A fine bin whose values fall in one display bin counts there exactly (bin_of is monotone); one that
// straddles an edge is split in proportion to where the edge falls in [its min, its max].
void display_histogram(Summary& s, size_t bins, const OnePassTally& t) {
  fill_histogram(s, bins);
  for (double x : t.outside) ++s.bin_counts[bin_of(x, s.min, s.max, bins)];
  for (size_t f = 0; f < OnePassTally::kFineBins; ++f) {
    const size_t count = t.fine[f].count;
    if (count == 0) continue;
    const double a = t.fine[f].min, b = t.fine[f].max;
    const size_t first = bin_of(a, s.min, s.max, bins), last = bin_of(b, s.min, s.max, bins);
    size_t given = 0;
    for (size_t d = first; d < last; ++d) {
      const size_t upto = size_t(std::llround(double(count) * std::clamp((s.bin_edges[d + 1] - a) / (b - a), 0.0, 1.0)));
      s.bin_counts[d] += std::max(upto, given) - given;
      given = std::max(upto, given);
    }
    s.bin_counts[last] += count - given;
  }
}

}  // namespace

Summary monte_carlo_summary(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                            size_t output, size_t samples, uint64_t seed, unsigned threads, size_t bins, const StreamingOptions& options) {
  const size_t chunks = (samples + kChunkRows - 1) / kChunkRows, n_out = cone.n_outputs;
  const size_t pilot_chunks = std::min(chunks, std::max<size_t>(1, (options.pilot_rows + kChunkRows - 1) / kChunkRows));
  const size_t pilot_rows = std::min(samples, pilot_chunks * kChunkRows);

  // The pilot: the run's first chunks, held.
  std::vector<double> pilot(pilot_rows);
  for_each_draw(
      cone, base, inputs, samples, seed, threads,
      [&](const RowBlock& b) {
        for (size_t r = 0; r < b.rows; ++r) pilot[b.first_row + r] = b.outputs[r * n_out + output];
      },
      0, pilot_chunks, options.per_draw_baseline);
  if (pilot_rows == samples) return summarize(std::move(pilot), bins);

  std::vector<double> sorted;
  sorted.reserve(pilot_rows);
  for (double x : pilot)
    if (std::isfinite(x)) sorted.push_back(x);
  if (sorted.empty()) return summary_in_three_passes(cone, base, inputs, output, samples, seed, threads, bins);
  std::sort(sorted.begin(), sorted.end());
  OnePassTally tally;
  tally.lo = sorted.front(), tally.hi = sorted.back();
  tally.outside_cap = options.max_outside ? options.max_outside : std::max<size_t>(pilot_rows, 1 << 16);
  tally.brackets = place_brackets(sorted, options.bracket_sd);
  sorted = {};

  // Every chunk's moments, then the rest of the run, each draw evaluated once.
  std::vector<Moments> moments(chunks);
  for (size_t c = 0; c < pilot_chunks; ++c) {
    const size_t first = c * kChunkRows, rows = std::min(kChunkRows, samples - first);
    moments[c] = Moments::of(pilot.data() + first, 1, rows);
  }
  tally.add(pilot.data(), 1, pilot_rows);
  pilot = {};
  {
    TallyPool pool(tally);
    for_each_draw(
        cone, base, inputs, samples, seed, threads,
        [&](const RowBlock& b) {
          moments[b.chunk] = Moments::of(b.outputs + output, n_out, b.rows);
          OnePassTally* mine = pool.take();
          mine->add(b.outputs + output, n_out, b.rows);
          pool.give(mine);
        },
        pilot_chunks, chunks, options.per_draw_baseline);
    pool.merge_into(tally);
  }
  if (tally.overflow) {
    Summary s = summary_in_three_passes(cone, base, inputs, output, samples, seed, threads, bins);
    ++s.passes;  // the pass that overflowed
    return s;
  }

  Moments all;
  double sum = 0;
  for (const Moments& m : moments) all.merge(m), sum += m.sum;  // the sum in chunk order, as the three-pass summary adds
  Summary s;
  s.samples = samples;
  s.nonfinite = samples - all.n;
  s.mean = sum / double(all.n);
  s.sd = all.n > 1 ? std::sqrt(all.m2 / double(all.n - 1)) : 0;
  s.min = all.min, s.max = all.max;

  // Each needed order statistic from a bracket that holds it; the rest located in the fine histogram.
  std::map<size_t, double> order;
  std::vector<size_t> missed;
  for (size_t r : needed_ranks(all.n)) {
    auto it = std::find_if(tally.brackets.begin(), tally.brackets.end(), [&](const Bracket& b) { return r >= b.below && r - b.below < b.held.size(); });
    if (it == tally.brackets.end()) {
      missed.push_back(r);
      continue;
    }
    auto& held = it->held;
    std::nth_element(held.begin(), held.begin() + long(r - it->below), held.end());
    order[r] = held[r - it->below];
  }
  if (!missed.empty()) {
    std::vector<double> low, high;
    for (double x : tally.outside) (x < tally.lo ? low : high).push_back(x);
    std::sort(low.begin(), low.end());
    std::sort(high.begin(), high.end());
    std::map<size_t, std::vector<std::pair<size_t, size_t>>> wanted;  // fine bin -> (rank, rank within bin)
    for (size_t r : missed) {
      if (r < low.size()) {
        order[r] = low[r];
        continue;
      }
      size_t below = low.size(), f = 0;
      while (f < OnePassTally::kFineBins && below + tally.fine[f].count <= r) below += tally.fine[f++].count;
      if (f == OnePassTally::kFineBins) order[r] = high[r - below];
      else if (tally.fine[f].min == tally.fine[f].max) order[r] = tally.fine[f].min;
      else wanted[f].emplace_back(r, r - below);
    }
    if (!wanted.empty()) {
      ++s.passes;
      std::map<size_t, std::vector<double>> held;
      for (const auto& [bin, ranks] : wanted) held[bin].reserve(tally.fine[bin].count);
      std::mutex merge;
      for_each_draw(cone, base, inputs, samples, seed, threads, [&](const RowBlock& b) {
        std::lock_guard<std::mutex> lock(merge);
        for (size_t r = 0; r < b.rows; ++r) {
          const double x = b.outputs[r * n_out + output];
          if (!std::isfinite(x) || x < tally.lo || x > tally.hi) continue;
          if (auto it = held.find(bin_of(x, tally.lo, tally.hi, OnePassTally::kFineBins)); it != held.end()) it->second.push_back(x);
        }
      });
      select_ranks(wanted, held, order);
    }
  }
  auto at = [&](size_t k) { return order.at(k); };
  s.p5 = percentile(all.n, 0.05, at), s.p50 = percentile(all.n, 0.5, at), s.p95 = percentile(all.n, 0.95, at);
  display_histogram(s, bins, tally);
  return s;
}

double halton(uint64_t index, size_t dim) {
  static constexpr uint32_t kPrimes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89,
                                         97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173};
  constexpr size_t kDims = sizeof(kPrimes) / sizeof(kPrimes[0]);
  // Past the table, reuse a prime with a different digit permutation offset would be needed; dimensions
  // that high are refused by the caller instead.
  if (dim >= kDims) return NAN;
  const uint32_t b = kPrimes[dim];
  double f = 1, r = 0;
  while (index > 0) f /= b, r += f * double(index % b), index /= b;
  return r;
}

RqmcSummary rqmc_summary(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                         size_t output, size_t samples, uint64_t seed, unsigned threads) {
  if (std::isnan(halton(1, inputs.empty() ? 0 : inputs.size() - 1)))
    throw std::runtime_error("randomized quasi-Monte Carlo supports at most 40 uncertain inputs; use `uncertainty`");
  RqmcSummary out;
  out.replicates = std::max<size_t>(1, std::min(kRqmcReplicates, samples));
  const size_t per = samples / out.replicates;  // points per replicate; the remainder goes to the last
  std::vector<double> shift(out.replicates * inputs.size());
  Rng rng(derive_seed(seed, 0));
  for (double& x : shift) x = rng.uniform();
  std::vector<double> y(samples);
  const size_t n_out = cone.n_outputs;
  parallel_evaluate(
      cone, samples, threads,
      [&](RowBlock& b) {
        fill_base(b.inputs, b.rows, base);
        for (size_t r = 0; r < b.rows; ++r) {
          const size_t row = b.first_row + r, rep = std::min(row / per, out.replicates - 1);
          const uint64_t index = row - rep * per + 1;  // Halton point 0 is the origin: skipped
          for (size_t k = 0; k < inputs.size(); ++k) {
            double u = halton(index, k) + shift[rep * inputs.size() + k];
            u -= std::floor(u);
            u = std::clamp(u, 0x1p-53, 1 - 0x1p-53);  // the open interval the inverse CDFs expect
            b.inputs[r * cone.n_inputs + inputs[k].column] = inputs[k].dist.quantile(u);
          }
        }
      },
      [&](const RowBlock& b) {
        for (size_t r = 0; r < b.rows; ++r) y[b.first_row + r] = b.outputs[r * n_out + output];
      });
  double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
  for (size_t rep = 0; rep < out.replicates; ++rep) {
    const size_t from = rep * per, to = rep + 1 == out.replicates ? samples : from + per;
    const Summary s = summarize(std::vector<double>(y.begin() + long(from), y.begin() + long(to)), 1);
    const double v[3] = {s.p5, s.p50, s.p95};
    for (int i = 0; i < 3; ++i) sum[i] += v[i], sum2[i] += v[i] * v[i];
  }
  double se[3];
  const double R = double(out.replicates);
  for (int i = 0; i < 3; ++i) {
    const double var = out.replicates > 1 ? std::max(0.0, (sum2[i] - sum[i] * sum[i] / R) / (R - 1)) : NAN;
    se[i] = std::sqrt(var / R);
  }
  out.p5_se = se[0], out.p50_se = se[1], out.p95_se = se[2];
  out.pooled = summarize(std::move(y), 1);
  return out;
}

SobolIndices sobol(const CompiledCone& cone, const std::vector<double>& base, const std::vector<UncertainInput>& inputs,
                   size_t output, size_t n, uint64_t seed, unsigned threads) {
  const size_t k = inputs.size();
  // Matrices A and B hold n independent draws of the uncertain inputs; AB_i is A with column i from B.
  std::vector<double> a(n * k), b(n * k);
  Rng rng(seed);
  for (size_t r = 0; r < n; ++r)
    for (size_t i = 0; i < k; ++i) a[r * k + i] = inputs[i].dist.sample(rng), b[r * k + i] = inputs[i].dist.sample(rng);
  // Row layout: block 0 = A, block 1 = B, block 2+i = AB_i, each n rows.
  const size_t total = n * (k + 2);
  std::vector<double> y(total);
  parallel_evaluate(
      cone, total, threads,
      [&](RowBlock& blk) {
        fill_base(blk.inputs, blk.rows, base);
        for (size_t r = 0; r < blk.rows; ++r) {
          const size_t row = blk.first_row + r, which = row / n, s = row % n;
          for (size_t i = 0; i < k; ++i) {
            const bool from_b = which == 1 || (which >= 2 && which - 2 == i);
            blk.inputs[r * cone.n_inputs + inputs[i].column] = from_b ? b[s * k + i] : a[s * k + i];
          }
        }
      },
      [&](const RowBlock& blk) {
        for (size_t r = 0; r < blk.rows; ++r) y[blk.first_row + r] = blk.outputs[r * cone.n_outputs + output];
      });
  const double* fa = y.data();
  const double* fb = y.data() + n;
  double mean = 0;
  for (size_t r = 0; r < 2 * n; ++r) mean += y[r];
  mean /= double(2 * n);
  double var = 0;
  for (size_t r = 0; r < 2 * n; ++r) var += (y[r] - mean) * (y[r] - mean);
  var /= double(2 * n - 1);
  SobolIndices s;
  s.variance = var, s.evaluations = total;
  for (size_t i = 0; i < k; ++i) {
    const double* fab = y.data() + (2 + i) * n;
    double first = 0, tot = 0;
    for (size_t r = 0; r < n; ++r) {
      first += fb[r] * (fab[r] - fa[r]);
      tot += (fa[r] - fab[r]) * (fa[r] - fab[r]);
    }
    s.first.push_back(first / double(n) / var);
    s.total.push_back(tot / (2.0 * double(n)) / var);
  }
  return s;
}

}  // namespace gs
