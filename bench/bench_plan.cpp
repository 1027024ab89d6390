// Evaluation tiers and Monte Carlo summaries, timed in one process (driven by bench/plan_tiers.sh and
// bench/mc_summary.sh, which also read each run's peak memory).
//
//   bench_plan tiers IMAGE PRESETS_DIR
//     For each headline target under the default preset, with its uncertain inputs as the cone's
//     inputs (as `resolve` draws its interval): the reference interpreter's build time and time per
//     row against the JIT's (first-use LLVM load, compile, time per row), measured in this run, and the
//     batch size from which the JIT is cheaper (with and without the one-off LLVM load).
//   bench_plan mc IMAGE PRESETS_DIR SAMPLES METHOD
//     The summary of econ.cost.per_token over SAMPLES draws by METHOD: sort (the former summary: the
//     sample array, fully sorted), select (the sample array, nth_element) or stream (no sample array).
//     Prints one line: method, samples, seconds, p5, p50, p95.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/headline.h"
#include "runtime/jit/interpreter.h"
#include "runtime/presets.h"
#include "runtime/uq/parallel.h"
#include "runtime/uq/plan.h"
#include "runtime/uq/uncertainty.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Setup {
  gs::Registry reg;
  gs::Preset preset;
  Setup(const char* image, const char* presets) : reg(gs::Registry::load(image)), preset(gs::PresetLibrary(reg, presets).load("default")) {}
  std::vector<uint32_t> uncertain() const {
    std::vector<uint32_t> v;
    for (const auto& [var, dist] : preset.uncertain) v.push_back(var);
    return v;
  }
  std::vector<gs::UncertainInput> columns(const gs::Plan& plan) const {
    std::vector<gs::UncertainInput> in;
    for (const auto& [var, dist] : preset.uncertain)
      if (auto c = plan.column(var)) in.push_back({*c, dist});
    return in;
  }
};

// Seconds per row of `cone` on batches of kChunkRows rows at the base point, over at least 0.2 s.
double seconds_per_row(const gs::CompiledCone& cone, const std::vector<double>& base) {
  const size_t rows = gs::kChunkRows;
  std::vector<double> in(rows * cone.n_inputs), out(rows * cone.n_outputs);
  for (size_t r = 0; r < rows; ++r) std::copy(base.begin(), base.end(), in.begin() + long(r * cone.n_inputs));
  size_t done = 0;
  const auto t = Clock::now();
  do {
    cone.batch(in.data(), out.data(), rows);
    done += rows;
  } while (since(t) < 0.2);
  return since(t) / double(done);
}

int tiers(const Setup& s) {
  const auto t_load = Clock::now();
  gs::Jit jit;  // the first JIT of a process loads libLLVM and sets up ORC
  const double llvm_load = since(t_load);
  std::printf("plan_tiers: LLVM load and JIT set-up (once per process): %.2f ms\n", llvm_load * 1e3);
  std::printf("  %-28s %6s %10s %10s %11s %11s %7s %12s %14s\n", "target", "steps", "interp ms", "jit ms", "interp ns/r",
              "jit ns/r", "ratio", "crossover", "+LLVM load");
  for (const gs::Export& headline : s.reg.exports(gs::kExportHeadline)) {
    const std::string name = s.reg.var(headline.var).name;
    const uint32_t* id = &headline.var;
    gs::Plan plan(s.reg, s.preset.assignments, s.preset.variants, {*id}, s.uncertain());
    if (!plan.complete()) continue;
    auto t = Clock::now();
    const gs::CompiledCone interp = gs::interpret(plan.program());
    const double interp_build = since(t);
    t = Clock::now();
    const gs::CompiledCone compiled = jit.compile(plan.program());
    const double jit_build = since(t);
    const double row_interp = seconds_per_row(interp, plan.base()), row_jit = seconds_per_row(compiled, plan.base());
    const double gain = row_interp - row_jit;
    const double cross = gain > 0 ? (jit_build - interp_build) / gain : INFINITY;
    const double cross_load = gain > 0 ? (jit_build + llvm_load - interp_build) / gain : INFINITY;
    std::printf("  %-28s %6zu %10.3f %10.3f %11.1f %11.1f %6.1fx %12.0f %14.0f\n", name.c_str(), plan.program().steps.size(), interp_build * 1e3,
                jit_build * 1e3, row_interp * 1e9, row_jit * 1e9, row_interp / row_jit, cross, cross_load);
  }
  std::printf("  crossover: rows from which compiling pays (JIT compile vs interpreter build, per-row difference);\n"
              "  +LLVM load: the same for the first cone of a process. Auto switches at %zu rows.\n", gs::kJitCrossoverRows);
  return 0;
}

int mc(const Setup& s, size_t samples, const std::string& method) {
  const uint32_t target = *s.reg.find_var("econ.cost.per_token");
  gs::Plan plan(s.reg, s.preset.assignments, s.preset.variants, {target}, s.uncertain());
  const gs::CompiledCone& cone = plan.cone(gs::Evaluator::Jit);
  const auto inputs = s.columns(plan);
  const unsigned threads = gs::default_threads();
  const auto t = Clock::now();
  double p5 = 0, p50 = 0, p95 = 0;
  if (method == "stream") {
    auto sum = gs::monte_carlo_summary(cone, plan.base(), inputs, 0, samples, 1, threads);
    p5 = sum.p5, p50 = sum.p50, p95 = sum.p95;
  } else if (method == "select") {
    auto sum = gs::summarize(std::move(gs::monte_carlo(cone, plan.base(), inputs, samples, 1, threads)[0]));
    p5 = sum.p5, p50 = sum.p50, p95 = sum.p95;
  } else if (method == "sort") {  // the former summary's dominant cost: every sample held, then sorted
    auto y = std::move(gs::monte_carlo(cone, plan.base(), inputs, samples, 1, threads)[0]);
    y.erase(std::remove_if(y.begin(), y.end(), [](double v) { return !std::isfinite(v); }), y.end());
    std::sort(y.begin(), y.end());
    auto pct = [&](double p) {
      const double h = double(y.size() - 1) * p;
      const size_t lo = size_t(std::floor(h));
      return lo + 1 < y.size() ? y[lo] + (h - double(lo)) * (y[lo + 1] - y[lo]) : y[lo];
    };
    p5 = pct(0.05), p50 = pct(0.5), p95 = pct(0.95);
  } else {
    std::fprintf(stderr, "bench_plan: unknown method %s\n", method.c_str());
    return 2;
  }
  std::printf("%s %zu %.6f %.17g %.17g %.17g\n", method.c_str(), samples, since(t), p5, p50, p95);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_plan tiers IMAGE PRESETS | mc IMAGE PRESETS SAMPLES METHOD\n");
    return 2;
  }
  const std::string mode = argv[1];
  Setup s(argv[2], argv[3]);
  if (mode == "tiers") return tiers(s);
  if (mode == "mc" && argc == 6) return mc(s, std::strtoull(argv[4], nullptr, 10), argv[5]);
  std::fprintf(stderr, "bench_plan: bad arguments\n");
  return 2;
}
