#include "runtime/uq/uncertainty.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/uq/parallel.h"

namespace gs {

Summary summarize(std::vector<double> values, size_t bins) {
  Summary s;
  s.samples = values.size();
  auto finite_end = std::partition(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  s.nonfinite = size_t(values.end() - finite_end);
  values.erase(finite_end, values.end());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  auto percentile = [&](double p) {
    double h = (n - 1) * p;
    size_t lo = size_t(std::floor(h));
    return lo + 1 < n ? values[lo] + (h - lo) * (values[lo + 1] - values[lo]) : values[lo];
  };
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / n;
  double ss = 0;
  for (double v : values) ss += (v - s.mean) * (v - s.mean);
  s.sd = n > 1 ? std::sqrt(ss / (n - 1)) : 0;
  s.p5 = percentile(0.05), s.p50 = percentile(0.5), s.p95 = percentile(0.95);
  s.min = values.front(), s.max = values.back();
  s.bin_counts.assign(bins, 0);
  for (size_t i = 0; i <= bins; ++i) s.bin_edges.push_back(s.min + (s.max - s.min) * double(i) / double(bins));
  for (double v : values) {
    size_t b = s.max > s.min ? size_t((v - s.min) / (s.max - s.min) * bins) : 0;
    ++s.bin_counts[std::min(b, bins - 1)];
  }
  return s;
}

namespace {

// Writes `rows` copies of the base point; the caller then overwrites the uncertain columns.
void fill_base(double* in, size_t rows, const std::vector<double>& base) {
  for (size_t r = 0; r < rows; ++r) std::memcpy(in + r * base.size(), base.data(), base.size() * sizeof(double));
}

}  // namespace

std::vector<std::vector<double>> monte_carlo(const CompiledCone& cone, const std::vector<double>& base,
                                             const std::vector<UncertainInput>& inputs, size_t samples,
                                             uint64_t seed, unsigned threads) {
  std::vector<std::vector<double>> out(cone.n_outputs, std::vector<double>(samples));
  parallel_evaluate(
      cone, samples, threads,
      [&](RowBlock& b) {
        fill_base(b.inputs, b.rows, base);
        Rng rng(derive_seed(seed, b.chunk));  // one stream per chunk: independent of thread scheduling
        for (size_t r = 0; r < b.rows; ++r)
          for (const auto& u : inputs) b.inputs[r * cone.n_inputs + u.column] = u.dist.sample(rng);
      },
      [&](const RowBlock& b) {
        for (size_t r = 0; r < b.rows; ++r)
          for (size_t o = 0; o < cone.n_outputs; ++o) out[o][b.first_row + r] = b.outputs[r * cone.n_outputs + o];
      });
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
