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
//     sample array, fully sorted), select (the sample array, nth_element) or stream (no sample array,
//     one pass: monte_carlo_summary).
//     Prints one line: method, samples, seconds, p5, p50, p95.
//     Also stream-perdraw: stream with the former per-draw fill (StreamingOptions::per_draw_baseline).
//     The line ends with the summary's CPU seconds (user + system, all threads).
//   bench_plan draws IMAGE PRESETS_DIR [ROWS]
//     Where one Monte Carlo draw's time goes, in CPU time of one thread, over ROWS draws (default 2^24) of
//     econ.cost.per_token under the default preset: the uniforms alone, the input rows filled the former
//     way (a Distribution::sample call per input and row) and the batched way (fill_draws), the SIMD
//     batch kernel, and the whole streaming summary; the difference is the summary's bookkeeping.
//   bench_plan simd IMAGE PRESETS_DIR [ROWS]
//     Sweeps of econ.cost.per_token over two inputs, filled and stored as `sweep` does, through the
//     scalar JIT (the former batch, the baseline) and the SIMD block JIT with each of its changes added in
//     turn: rows/s per core (thread CPU time), each against the one before and the scalar one, all in this
//     run, and the 2-thread rate against 1 thread by wall clock with the load average. "deep": par.dp x
//     arch.d_model (most of the cone is evaluated per row); "shallow": econ.cluster.utilization x
//     econ.gpu.capex (most of it folds). Exit 1 when a kernel differs from the scalar one by more than
//     1e-12, when 2 threads give other answers than 1, or when a varied input does not move the target.
//   bench_plan rqmc IMAGE PRESETS_DIR
//     resolve's interval for each headline: randomized-QMC percentiles and their stated standard
//     errors at 512-8192 samples against plain Monte Carlo with 10^6 draws (the reference) in this run.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/headline.h"
#include "runtime/jit/interpreter.h"
#include "runtime/presets.h"
#include "runtime/rng.h"
#include "runtime/uq/parallel.h"
#include "runtime/uq/plan.h"
#include "runtime/uq/uncertainty.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// CPU time of the calling thread, so that other processes on a loaded machine do not count.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

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
  const double cpu0 = cpu_seconds();
  const auto t = Clock::now();
  double p5 = 0, p50 = 0, p95 = 0;
  if (method == "stream" || method == "stream-perdraw") {
    gs::StreamingOptions options;
    options.per_draw_baseline = method == "stream-perdraw";
    auto sum = gs::monte_carlo_summary(cone, plan.base(), inputs, 0, samples, 1, threads, 20, options);
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
  const double wall = since(t);
  std::printf("%s %zu %.6f %.17g %.17g %.17g %.3f\n", method.c_str(), samples, wall, p5, p50, p95, cpu_seconds() - cpu0);
  return 0;
}

// Nanoseconds per draw of each part of a Monte Carlo draw, on one thread (see the header comment).
int draws(const Setup& s, size_t rows) {
  const uint32_t target = *s.reg.find_var("econ.cost.per_token");
  gs::Plan plan(s.reg, s.preset.assignments, s.preset.variants, {target}, s.uncertain());
  const gs::CompiledCone& cone = plan.cone(gs::Evaluator::Jit);
  const auto inputs = s.columns(plan);
  const size_t chunk = gs::kChunkRows, chunks = (rows + chunk - 1) / chunk, n_in = cone.n_inputs, k = inputs.size();
  rows = chunks * chunk;
  std::vector<double> in(chunk * n_in), in2(chunk * n_in), out(chunk * cone.n_outputs), u(chunk * k);
  auto per_draw_ns = [&](auto&& body) {
    body(size_t(0));  // warm caches and buffers
    const double t = thread_cpu_seconds();
    for (size_t c = 0; c < chunks; ++c) body(c);
    return (thread_cpu_seconds() - t) / double(rows) * 1e9;
  };
  const double rng_ns = per_draw_ns([&](size_t c) { gs::Rng(gs::derive_seed(1, c)).fill_uniform_open(u.data(), u.size()); });
  const double old_fill = per_draw_ns([&](size_t c) { gs::fill_draws(in2.data(), chunk, n_in, plan.base(), inputs, 1, c, true); });
  const double new_fill = per_draw_ns([&](size_t c) { gs::fill_draws(in.data(), chunk, n_in, plan.base(), inputs, 1, c, false); });
  if (in != in2) return std::printf("draws: the batched fill differs from the per-draw fill\n"), 1;
  const double kernel = per_draw_ns([&](size_t) { cone.batch(in.data(), out.data(), chunk); });
  const double t = thread_cpu_seconds();
  gs::monte_carlo_summary(cone, plan.base(), inputs, 0, rows, 1, 1);  // one thread: this one
  const double total = (thread_cpu_seconds() - t) / double(rows) * 1e9;
  std::printf("mc_draws: where a draw's time goes, CPU ns per draw on one thread, %zu draws of econ.cost.per_token (%zu uncertain inputs, %zu cone inputs)\n", rows, k,
              n_in);
  std::printf("  uniforms alone (xoshiro256**, %zu per draw)  %7.1f ns\n", k, rng_ns);
  std::printf("  input rows, former per-draw fill             %7.1f ns\n", old_fill);
  std::printf("  input rows, batched fill (fill_draws)        %7.1f ns  (%.2fx)\n", new_fill, old_fill / new_fill);
  std::printf("  SIMD batch kernel                            %7.1f ns\n", kernel);
  std::printf("  whole streaming summary                      %7.1f ns  (%.3g draws/s)\n", total, 1e9 / total);
  std::printf("  summary bookkeeping (the difference)         %7.1f ns\n", total - new_fill - kernel);
  return 0;
}

// One run of a sweep over `rows` rows, filled as `sweep` fills them (base point, then the varied
// columns from the row index: axis 0 fastest, each axis kSide values) and stored as `sweep` stores them.
constexpr size_t kSide = 2048;
struct SweepRun {
  double wall = 0, thread_cpu = 0, process_cpu = 0;  // seconds
};
// `y` (one output per row) is allocated and touched by the caller, before the clocks start.
SweepRun sweep_run(const gs::CompiledCone& cone, const std::vector<double>& base, const std::vector<size_t>& cols,
                   const std::vector<std::pair<double, double>>& ranges, std::vector<double>& y, unsigned threads) {
  const size_t n_in = cone.n_inputs, n_out = cone.n_outputs, rows = y.size();
  SweepRun r;
  const double cpu0 = cpu_seconds(), thread0 = thread_cpu_seconds();
  const auto t = Clock::now();
  gs::parallel_evaluate(
      cone, rows, threads,
      [&](gs::RowBlock& b) {
        for (size_t i = 0; i < b.rows; ++i) {
          double* row = b.inputs + i * n_in;
          std::copy(base.begin(), base.end(), row);
          size_t index = b.first_row + i;
          for (size_t k = 0; k < cols.size(); ++k, index /= kSide)
            row[cols[k]] = ranges[k].first + (ranges[k].second - ranges[k].first) * double(index % kSide) / double(kSide - 1);
        }
      },
      [&](const gs::RowBlock& b) {
        for (size_t i = 0; i < b.rows; ++i) y[b.first_row + i] = b.outputs[i * n_out];
      });
  r.wall = since(t), r.thread_cpu = thread_cpu_seconds() - thread0, r.process_cpu = cpu_seconds() - cpu0;
  return r;
}

// "Benchmarks that cannot lie" (issue 14): every varied input must move the answer. Row 0 is every axis
// at its low end; row kSide^k * (kSide - 1) is axis k at its high end, the others low. Returns the
// relative change per axis (0 when the sweep is too short to reach an axis's high end).
std::vector<double> axis_effects(const std::vector<double>& y, size_t n_axes) {
  std::vector<double> effect;
  size_t stride = 1;
  for (size_t k = 0; k < n_axes; ++k, stride *= kSide) {
    const size_t hi = stride * (kSide - 1);
    effect.push_back(hi < y.size() ? std::fabs(y[hi] / y[0] - 1) : 0.0);
  }
  return effect;
}

double load_average() {
  double l = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = -1;
    std::fclose(f);
  }
  return l;
}

int simd(const Setup& s, size_t rows) {
  const uint32_t target = *s.reg.find_var("econ.cost.per_token");
  struct Axis { const char* var; double lo_factor, hi_factor; };
  const std::pair<const char*, std::vector<Axis>> sweeps[] = {
      {"deep", {{"par.dp", 0.25, 32}, {"arch.d_model", 0.5, 2}}},
      {"shallow", {{"econ.cluster.utilization", 0.5, 1}, {"econ.gpu.capex", 0.8, 1.5}}},
  };
  // Each kernel adds one change to the one before it; the last is the JIT's default.
  struct Kernel { const char* label; gs::JitOptions options; };
  const Kernel kernels[] = {
      {"scalar", {false, false, false, false}},  // one row at a time: the former batch, the baseline
      {"SIMD", {true, false, false, false}},     // 64-row blocks through the loop vectorizer; libm called lane by lane
      {"+powers", {true, false, true, false}},   // and x^n (n = 3..16) as multiplications
      {"+recip", {true, false, true, true}},     // and divisions by a shared or late-constant divisor as reciprocals
      {"+libmvec", {true, true, true, true}},    // and libmvec's vector exp/log/pow/...
  };
  std::vector<std::unique_ptr<gs::Jit>> jits;
  for (const Kernel& k : kernels) jits.push_back(std::make_unique<gs::Jit>(k.options));
  rows = std::max(rows, kSide * kSide);  // every axis reaches its high end
  std::printf("jit_simd: econ.cost.per_token under the default preset, %zu rows per measurement (%zu x %zu grid, repeated)\n", rows, kSide, kSide);
  std::printf("  per core: rows / CPU time of the evaluating thread (other processes do not count); each kernel adds one change\n");
  std::printf("  %-8s %6s %-9s %14s %9s %9s %12s\n", "sweep", "steps", "kernel", "rows/s/core", "vs prev", "vs scalar", "max rel diff");
  int status = 0;
  for (const auto& [label, axes] : sweeps) {
    std::vector<uint32_t> vary;
    for (const Axis& a : axes) vary.push_back(*s.reg.find_var(a.var));
    gs::Plan plan(s.reg, s.preset.assignments, s.preset.variants, {target}, vary);
    std::vector<size_t> cols;
    std::vector<std::pair<double, double>> ranges;
    for (size_t k = 0; k < axes.size(); ++k)
      if (auto c = plan.column(vary[k])) cols.push_back(*c), ranges.push_back({plan.base()[*c] * axes[k].lo_factor, plan.base()[*c] * axes[k].hi_factor});
    if (cols.size() != axes.size()) {
      std::printf("  %-8s: an axis does not reach the target; skipped\n", label);
      status = 1;
      continue;
    }
    // Each kernel three times, interleaved, and its least CPU time kept: on a shared machine the least is
    // the closest to what the core can do, and interleaving spreads slow phases over all kernels.
    std::vector<gs::CompiledCone> cones;
    for (auto& jit : jits) cones.push_back(jit->compile(plan.program()));
    std::vector<std::vector<double>> y(cones.size(), std::vector<double>(rows));
    std::vector<double> cpu(cones.size(), INFINITY);
    for (int round = 0; round < 3; ++round)
      for (size_t k = 0; k < cones.size(); ++k) cpu[k] = std::min(cpu[k], sweep_run(cones[k], plan.base(), cols, ranges, y[k], 1).thread_cpu);
    const std::vector<double>& reference = y[0];  // the scalar kernel's answers
    for (size_t k = 0; k < cones.size(); ++k) {
      double worst = 0;
      for (size_t r = 0; r < rows; ++r)
        if (reference[r] != y[k][r] && !(std::isnan(reference[r]) && std::isnan(y[k][r])))
          if (const double d = std::fabs(y[k][r] - reference[r]) / std::fabs(reference[r]); !(d <= worst)) worst = d;  // NaN sticks
      const double rate = double(rows) / cpu[k], previous = double(rows) / cpu[k ? k - 1 : 0], scalar = double(rows) / cpu[0];
      std::printf("  %-8s %6s %-9s %14.3g %8.2fx %8.2fx %12.1e\n", k == 0 ? label : "", k == 0 ? std::to_string(plan.program().steps.size()).c_str() : "",
                  kernels[k].label, rate, rate / previous, rate / scalar, worst);
      if (!(worst <= 1e-12)) std::printf("  %-8s: %s differs from the scalar kernel by more than 1e-12\n", label, kernels[k].label), status = 1;
    }
    // "Benchmarks that cannot lie" (issue 14): every varied input must move the answer.
    const std::vector<double> effect = axis_effects(reference, axes.size());
    std::printf("  %-8s the target moves by", label);
    for (size_t k = 0; k < axes.size(); ++k) {
      std::printf(" %.3g%% over %s%s", effect[k] * 100, axes[k].var, k + 1 < axes.size() ? "," : "\n");
      if (!(effect[k] > 1e-9)) status = 1;
    }
    // 2 threads, today's kernel: rows/s by wall clock against 1 thread, run after run; on a machine whose
    // cores other processes share, the wall-clock ratio says as much about them as about the sweep, so the
    // load average stands beside it, and so does the CPU per row on 2 threads against 1 (contention).
    const double load = load_average();
    std::vector<double> y2(rows);
    const SweepRun one = sweep_run(cones.back(), plan.base(), cols, ranges, y.back(), 1), two = sweep_run(cones.back(), plan.base(), cols, ranges, y2, 2);
    if (std::memcmp(y.back().data(), y2.data(), rows * sizeof(double)) != 0)
      std::printf("  %-8s: the 2-thread sweep differs from the 1-thread sweep\n", label), status = 1;
    std::printf("  %-8s 2 threads: %.3g rows/s against %.3g on 1 (wall clock): %.2fx, load average %.1f; CPU per row %.2fx that of 1 thread\n", label,
                double(rows) / two.wall, double(rows) / one.wall, one.wall / two.wall, load, two.process_cpu / one.process_cpu);
  }
  std::printf("  targets (issue 14): deep >= 2e7/s per core, shallow >= 1e8/s per core, 2 threads >= 1.9x 1 thread\n");
  return status;
}

// Percentiles of `plain` (Monte Carlo, many draws) as the reference for the randomized-QMC interval.
int rqmc(const Setup& s) {
  std::printf("rqmc: resolve's interval (randomized Halton, %zu shifts) against 10^6 plain Monte Carlo draws\n", gs::kRqmcReplicates);
  std::printf("  %-28s %7s %9s %12s %12s %12s %12s\n", "target", "samples", "ms", "p5 error", "p5 stated se", "p95 error", "p95 stated se");
  for (const gs::Export& headline : s.reg.exports(gs::kExportHeadline)) {
    gs::Plan plan(s.reg, s.preset.assignments, s.preset.variants, {headline.var}, s.uncertain());
    if (!plan.complete()) continue;
    const auto inputs = s.columns(plan);
    if (inputs.empty()) continue;
    const gs::CompiledCone& jit = plan.cone(gs::Evaluator::Jit);
    const gs::Summary ref = gs::summarize(std::move(gs::monte_carlo(jit, plan.base(), inputs, 1000000, 99, gs::default_threads())[0]), 1);
    if (ref.p5 == ref.p95) continue;
    const gs::CompiledCone& interp = plan.cone(gs::Evaluator::Interpreter);
    for (size_t n : {size_t(512), size_t(2048), size_t(8192)}) {
      const auto t = Clock::now();
      const gs::RqmcSummary q = gs::rqmc_summary(interp, plan.base(), inputs, 0, n, 1, 1);
      const double ms = since(t) * 1e3;
      std::printf("  %-28s %7zu %9.2f %12.2e %12.2e %12.2e %12.2e\n", s.reg.var(headline.var).name.c_str(), n, ms,
                  std::fabs(q.pooled.p5 / ref.p5 - 1), q.p5_se / std::fabs(ref.p5), std::fabs(q.pooled.p95 / ref.p95 - 1), q.p95_se / std::fabs(ref.p95));
    }
  }
  std::printf("  errors relative to the reference percentile; the reference's own standard error is about 5e-4 of the spread\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_plan tiers IMAGE PRESETS | mc IMAGE PRESETS SAMPLES METHOD | draws IMAGE PRESETS [ROWS] | simd IMAGE PRESETS [ROWS] | rqmc IMAGE PRESETS\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (const char* dir = std::getenv("GSTACK_JIT_DUMP")) gs::set_jit_dump_dir(dir);  // as gpu-stack does
  Setup s(argv[2], argv[3]);
  if (mode == "tiers") return tiers(s);
  if (mode == "mc" && argc == 6) return mc(s, std::strtoull(argv[4], nullptr, 10), argv[5]);
  if (mode == "draws") return draws(s, argc >= 5 ? std::strtoull(argv[4], nullptr, 10) : size_t(1) << 24);
  if (mode == "simd") return simd(s, argc >= 5 ? std::strtoull(argv[4], nullptr, 10) : size_t(1) << 22);
  if (mode == "rqmc") return rqmc(s);
  std::fprintf(stderr, "bench_plan: bad arguments\n");
  return 2;
}
