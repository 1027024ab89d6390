// Monte Carlo and Sobol over JIT-compiled cones, checked against analytic results.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "runtime/uq/uncertainty.h"
#include "tests/unit/support/model_fixture.h"

namespace {

// Ishigami & Homma (1990): Y = sin(x1) + a sin^2(x2) + b x3^4 sin(x1), x_i ~ U(-pi, pi), a = 7, b = 0.1.
// Analytic indices (Sobol' & Levitan 1999; Saltelli et al. 2008, section 4.3):
//   V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2 = 13.8446
//   S1 = 0.3139, S2 = 0.4424, S3 = 0;  ST1 = 0.5576, ST2 = 0.4424, ST3 = 0.2437
const char* kIshigami = R"(
system t
ref ishigami "Ishigami and Homma 1990"
var t.x1 : 1 "first input" ref ishigami
var t.x2 : 1 "second input" ref ishigami
var t.x3 : 1 "third input" ref ishigami
var t.a : 1 "coefficient a" ref ishigami
var t.b : 1 "coefficient b" ref ishigami
var t.y : 1 "output" ref ishigami
eq y: t.y = sin(t.x1) + t.a * sin(t.x2)^2 + t.b * t.x3^4 * sin(t.x1)
)";

struct Ishigami {
  gs::Image img = gs::testing::compile_with_units(kIshigami);
  gs::Jit jit;
  gs::CompiledCone cone = jit.compile(gs::testing::program(img, {"t.x1", "t.x2", "t.x3", "t.a", "t.b"}, {"t.y"}));
  std::vector<double> base{0, 0, 0, 7, 0.1};
  std::vector<gs::UncertainInput> inputs{{0, {gs::Distribution::Kind::Uniform, -M_PI, M_PI}},
                                         {1, {gs::Distribution::Kind::Uniform, -M_PI, M_PI}},
                                         {2, {gs::Distribution::Kind::Uniform, -M_PI, M_PI}}};
};

}  // namespace

TEST_CASE("Sobol indices of the Ishigami function match the analytic values") {
  Ishigami f;
  auto s = gs::sobol(f.cone, f.base, f.inputs, 0, 200000, 42, 2);
  CHECK(s.evaluations == 200000 * 5);
  // Tolerance 0.02 absolute: the Monte Carlo error of these estimators at N = 2e5 is below 0.01.
  CHECK(s.variance == doctest::Approx(13.8446).epsilon(0.02));
  CHECK(s.first[0] == doctest::Approx(0.3139).epsilon(0.02 / 0.3139));
  CHECK(s.first[1] == doctest::Approx(0.4424).epsilon(0.02 / 0.4424));
  CHECK(std::fabs(s.first[2]) < 0.02);
  CHECK(s.total[0] == doctest::Approx(0.5576).epsilon(0.02 / 0.5576));
  CHECK(s.total[1] == doctest::Approx(0.4424).epsilon(0.02 / 0.4424));
  CHECK(s.total[2] == doctest::Approx(0.2437).epsilon(0.02 / 0.2437));
}

TEST_CASE("Monte Carlo is reproducible for a seed and independent of the thread count") {
  Ishigami f;
  auto one = gs::monte_carlo(f.cone, f.base, f.inputs, 50000, 7, 1);
  auto two = gs::monte_carlo(f.cone, f.base, f.inputs, 50000, 7, 2);
  auto other = gs::monte_carlo(f.cone, f.base, f.inputs, 50000, 8, 2);
  CHECK(one == two);
  CHECK(one != other);
  // E[Y] = a/2 = 3.5 for the Ishigami function.
  auto s = gs::summarize(one[0]);
  CHECK(s.mean == doctest::Approx(3.5).epsilon(0.05 / 3.5));
  CHECK(s.samples == 50000);
  CHECK(s.nonfinite == 0);
}

TEST_CASE("summaries use interpolated percentiles and count non-finite values apart") {
  std::vector<double> v;
  for (int i = 1; i <= 101; ++i) v.push_back(i);
  v.push_back(NAN);
  v.push_back(INFINITY);
  auto s = gs::summarize(v, 10);
  CHECK(s.samples == 103);
  CHECK(s.nonfinite == 2);
  CHECK(s.p50 == 51);
  CHECK(s.p5 == doctest::Approx(6));    // 1 + 0.05 * 100
  CHECK(s.p95 == doctest::Approx(96));  // 1 + 0.95 * 100
  CHECK(s.mean == doctest::Approx(51));
  size_t total = 0;
  for (auto c : s.bin_counts) total += c;
  CHECK(total == 101);
}

// The streaming summary re-draws the same seeded samples and holds none: its order statistics,
// extremes and histogram are the sample array's exactly (sums in another order: 1e-12).
TEST_CASE("the streaming summary equals the summary of the sample array, on any thread count") {
  Ishigami f;
  for (size_t n : {size_t(1), size_t(2), size_t(4095), size_t(50001)}) {
    const auto held = gs::summarize(gs::monte_carlo(f.cone, f.base, f.inputs, n, 11, 2)[0]);
    for (unsigned threads : {1u, 2u}) {
      INFO("n " << n << " threads " << threads);
      const auto streamed = gs::monte_carlo_summary(f.cone, f.base, f.inputs, 0, n, 11, threads);
      CHECK(streamed.samples == held.samples);
      CHECK(streamed.nonfinite == held.nonfinite);
      CHECK(streamed.p5 == held.p5);
      CHECK(streamed.p50 == held.p50);
      CHECK(streamed.p95 == held.p95);
      CHECK(streamed.min == held.min);
      CHECK(streamed.max == held.max);
      CHECK(streamed.bin_edges == held.bin_edges);
      CHECK(streamed.bin_counts == held.bin_counts);
      CHECK(streamed.mean == doctest::Approx(held.mean).epsilon(1e-12));
      CHECK(streamed.sd == doctest::Approx(held.sd).epsilon(1e-12));
    }
  }
}

// Past the pilot the one-pass summary holds only the values inside its brackets. Percentiles and
// extremes stay exact; a display count may differ from the exact one by the values of the fine bins
// at its two edges (here 3 values per fine bin on average: the test allows 32); totals are exact.
TEST_CASE("the one-pass summary past its pilot: exact percentiles in one pass, and still exact when a bracket misses") {
  Ishigami f;
  const size_t n = 200000;
  const auto held = gs::summarize(gs::monte_carlo(f.cone, f.base, f.inputs, n, 5, 2)[0]);
  struct Case {
    gs::StreamingOptions options;
    unsigned passes;
  };
  // 8192-draw pilot; brackets of +-0 sd (one order statistic each side): missed, one more pass; an
  // outside cap of 10 values: the three-pass fallback after the one pass.
  for (const Case& c : {Case{{8192, 7, 0}, 1}, Case{{8192, 0, 0}, 2}, Case{{8192, 7, 10}, 0}}) {
    for (unsigned threads : {1u, 2u}) {
      INFO("bracket sd " << c.options.bracket_sd << " outside cap " << c.options.max_outside << " threads " << threads);
      const auto s = gs::monte_carlo_summary(f.cone, f.base, f.inputs, 0, n, 5, threads, 20, c.options);
      if (c.passes) CHECK(s.passes == c.passes);
      else CHECK(s.passes >= 3);
      CHECK(s.samples == held.samples);
      CHECK(s.nonfinite == held.nonfinite);
      CHECK(s.p5 == held.p5);
      CHECK(s.p50 == held.p50);
      CHECK(s.p95 == held.p95);
      CHECK(s.min == held.min);
      CHECK(s.max == held.max);
      CHECK(s.mean == doctest::Approx(held.mean).epsilon(1e-12));
      CHECK(s.sd == doctest::Approx(held.sd).epsilon(1e-12));
      CHECK(s.bin_edges == held.bin_edges);
      size_t total = 0, worst = 0;
      for (size_t b = 0; b < s.bin_counts.size(); ++b)
        total += s.bin_counts[b], worst = std::max(worst, size_t(std::llabs(long(s.bin_counts[b]) - long(held.bin_counts[b]))));
      CHECK(total == n);
      CHECK(worst <= 32);
    }
  }
}

TEST_CASE("the streaming summary of a constant output needs no third pass and is exact") {
  Ishigami f;
  std::vector<gs::UncertainInput> none;  // nothing uncertain: every draw is the base point, y = 0
  const auto s = gs::monte_carlo_summary(f.cone, f.base, none, 0, 10000, 3, 2);
  CHECK(s.samples == 10000);
  CHECK(s.p5 == 0);
  CHECK(s.p95 == 0);
  CHECK(s.sd == 0);
  CHECK(s.bin_counts[0] == 10000);
}

TEST_CASE("batched draws are the former per-draw draws bit for bit, and give the same summary") {
  using K = gs::Distribution::Kind;
  // Every kind, a skewed triangular with its mode at an end, and a column (1) that stays at the base.
  const std::vector<gs::UncertainInput> inputs{{0, {K::Triangular, 0.45, 0.57, 0.5}}, {2, {K::Uniform, -3, 5}},
                                               {3, {K::Normal, 10, 2}},             {4, {K::Lognormal, 3, 0.5}},
                                               {5, {K::Triangular, 0, 0.5, 0}},     {6, {K::Triangular, 25000, 40000, 40000}}};
  const std::vector<double> base{1, 2, 3, 4, 5, 6, 7};
  const size_t n_in = base.size();
  for (size_t rows : {size_t(1), size_t(3), size_t(4096)})
    for (size_t chunk : {size_t(0), size_t(17)}) {
      std::vector<double> former(rows * n_in), batched(rows * n_in);
      gs::fill_draws(former.data(), rows, n_in, base, inputs, 9, chunk, true);
      gs::fill_draws(batched.data(), rows, n_in, base, inputs, 9, chunk, false);
      INFO("rows " << rows << " chunk " << chunk);
      CHECK(batched == former);  // exact: the same uniforms through the same formulas
      CHECK(batched[1] == 2);
    }
  Ishigami f;
  gs::StreamingOptions former;
  former.pilot_rows = 8192, former.per_draw_baseline = true;
  gs::StreamingOptions batched = former;
  batched.per_draw_baseline = false;
  const auto a = gs::monte_carlo_summary(f.cone, f.base, f.inputs, 0, 100000, 3, 2, 20, former);
  const auto b = gs::monte_carlo_summary(f.cone, f.base, f.inputs, 0, 100000, 3, 2, 20, batched);
  CHECK(a.p5 == b.p5);
  CHECK(a.p50 == b.p50);
  CHECK(a.p95 == b.p95);
  CHECK(a.mean == b.mean);
  CHECK(a.sd == b.sd);
  CHECK(a.bin_counts == b.bin_counts);
}

TEST_CASE("distributions: quantiles and validation") {
  using K = gs::Distribution::Kind;
  CHECK(gs::Distribution{K::Normal, 10, 2}.quantile(0.975) == doctest::Approx(10 + 2 * 1.959963984540054).epsilon(1e-12));
  CHECK(gs::Distribution{K::Lognormal, 3, 0.5}.quantile(0.5) == doctest::Approx(3).epsilon(1e-12));
  CHECK(gs::Distribution{K::Triangular, 0, 4, 1}.quantile(0.25) == doctest::Approx(1));  // mode sits at the 25% point
  // quantiles() over a column is quantile() per value, bit for bit, for every kind and on both sides of a
  // triangular mode.
  for (const gs::Distribution& d : {gs::Distribution{K::Uniform, -1, 3}, gs::Distribution{K::Normal, 10, 2}, gs::Distribution{K::Lognormal, 3, 0.5},
                                    gs::Distribution{K::Triangular, 520, 590, 570}, gs::Distribution{K::Triangular, 0, 0.5, 0}}) {
    std::vector<double> u(1000);
    for (size_t i = 0; i < u.size(); ++i) u[i] = (double(i) + 0.5) / double(u.size());
    std::vector<double> column = u;
    d.quantiles(column.data(), column.size());
    for (size_t i = 0; i < u.size(); ++i) CHECK(column[i] == d.quantile(u[i]));
  }
  CHECK(gs::Distribution{K::Uniform, 2, 1}.validate() != "");
  CHECK(gs::Distribution{K::Triangular, 0, 4, 5}.validate() != "");
  CHECK(gs::Distribution{K::Normal, 0, 1}.validate() == "");
}
