// How the model tool chain's cost grows with the model, over generated models of N relations (issue 14):
//   (a) the front end (`gstackc compile`'s work in process: parse, check, lower, write the image): CPU
//       time and peak heap per relation, for a chain (x_i = x_{i-1} + 1) and a wide model (N independent
//       relations y_i = a_k + i);
//   (b) loading the image (the runtime's Registry::load): the whole image, and the whole image plus one
//       target's cone (one relation of the wide model: what a command that asks one question pays);
//   (c) one target over the chain: the resolver's selection and the cone build (Plan), then the reference
//       interpreter (build and one evaluation), and the GiNaC resolver's `resolve`;
//   (d) JIT compile time against cone length (the chain's cone, its root an input).
// Each axis prints its times, the fitted log-log exponent over the sizes (least squares) and its aim
// (exponent <= 1.1; flat for one cone's load), and checks that it moved what it claims to: a bigger N gave
// a bigger image and a longer cone, and the chain's end evaluates to N. A failed check exits 1; a missed
// aim is printed and exits 0. Times are the thread's CPU time, the best of a few runs, so other work on a
// shared machine inflates them little.
//   bench_scaling [--quick] [--upto N]   (--quick: N = 300 and 3,000, one run each, for a smoke test;
//                                         --upto: only the sizes up to N, e.g. to profile one size)
//   bench_scaling --compile-only SHAPE N  (compiles the generated chain or wide model of N relations once,
//                                         for a profiler)
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "compiler/compile.h"
#include "compiler/limits.h"
#include "runtime/jit/jit.h"
#include "runtime/registry.h"
#include "runtime/resolver.h"
#include "runtime/uq/plan.h"

namespace {

using bench::best_of;
using bench::loglog_slope;
using bench::verdict;
using Points = std::vector<std::pair<double, double>>;

int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "bench_scaling: axis check failed: %s\n", what.c_str());
  ++failures;
}

// Relations per generated file: keeps each file under the front end's per-file token limit.
constexpr size_t kPerFile = 10'000;

enum class Shape { Chain, Wide };
const char* shape_name(Shape s) { return s == Shape::Chain ? "chain" : "wide"; }

// A model of `n` relations split into files of kPerFile, each file its own system s<k>. Chain: s0.x0 is
// the root and x_i = x_{i-1} + 1, so x_n = x0 + n, the cone of x_n holds every relation; each system uses
// the one before it. Wide: every file has one root s<k>.a and relations y_i = a + i, independent of each
// other. Declarations: 2n + 1 for the chain, 2n + files for the wide model.
std::vector<gs::compiler::SourceFile> generate(Shape shape, size_t n) {
  std::vector<gs::compiler::SourceFile> files;
  for (size_t first = 0, k = 0; first < n; first += kPerFile, ++k) {
    const std::string sys = "s" + std::to_string(k);
    std::string text = "system " + sys + " \"Generated " + shape_name(shape) + " for bench_scaling\"\n";
    if (shape == Shape::Chain && k > 0) text += "use s" + std::to_string(k - 1) + "\n";
    if (shape == Shape::Chain && k == 0) text += "var s0.x0 : 1 \"The chain's root input\"\n";
    if (shape == Shape::Wide) text += "var " + sys + ".a : 1 \"This file's root input\"\n";
    const size_t last = std::min(n, first + kPerFile);
    for (size_t i = first + 1; i <= last; ++i) {
      const std::string id = std::to_string(i);
      if (shape == Shape::Chain) {
        const std::string prev = (i - 1 == first && k > 0 ? "s" + std::to_string(k - 1) : sys) + ".x" + std::to_string(i - 1);
        text += "var " + sys + ".x" + id + " : 1 \"Link " + id + "\"\n";
        text += "eq r" + id + ": " + sys + ".x" + id + " = " + prev + " + 1\n";
      } else {
        text += "var " + sys + ".y" + id + " : 1 \"Output " + id + "\"\n";
        text += "eq r" + id + ": " + sys + ".y" + id + " = " + sys + ".a + " + id + "\n";
      }
    }
    char name[32];
    std::snprintf(name, sizeof name, "%04zu_%s.gstack", k, shape_name(shape));
    files.push_back(gs::compiler::SourceFile::from_text(name, std::move(text)));
  }
  return files;
}

size_t source_bytes(const std::vector<gs::compiler::SourceFile>& files) {
  size_t bytes = 0;
  for (const auto& f : files) bytes += f.text.size();
  return bytes;
}

std::string chain_end(size_t n) { return "s" + std::to_string((n - 1) / kPerFile) + ".x" + std::to_string(n); }

struct Sample {
  size_t n = 0;
  double seconds = 0;
  double heap_bytes = 0;
};

void print_axis(const char* what, const std::vector<Sample>& samples, double aim, bool per_relation_heap) {
  Points time;
  for (const auto& s : samples) {
    time.emplace_back(double(s.n), std::max(s.seconds, 1e-7));
    std::printf("  %-44s N=%7zu  %9.4f s CPU  %7.2f us/relation", what, s.n, s.seconds, s.seconds / double(s.n) * 1e6);
    if (per_relation_heap) std::printf("  peak heap %8.1f MiB = %6.2f KB/relation", s.heap_bytes / 1048576.0, s.heap_bytes / double(s.n) / 1024.0);
    std::printf("\n");
  }
  const double e = loglog_slope(time);
  std::printf("%s: time ~ N^%.3f over N=%zu..%zu (aim <= %.1f: %s)\n", what, e, samples.front().n, samples.back().n, aim, verdict(e <= aim));
  if (per_relation_heap) {
    Points heap;
    for (const auto& s : samples) heap.emplace_back(double(s.n), std::max(s.heap_bytes, 1.0));
    const double h = loglog_slope(heap);
    std::printf("%s: peak heap ~ N^%.3f (aim <= 1.1: %s)\n", what, h, verdict(h <= 1.1));
  }
}

// (a) The front end on one generated model; the image's bytes come back for the later axes.
Sample compile_model(Shape shape, size_t n, int repeats, std::vector<uint8_t>& image) {
  const auto sources = generate(shape, n);
  Sample s{n, 0, 0};
  s.seconds = best_of(repeats, [&] {
    s.heap_bytes = heap::peak_above_start([&] {
      auto result = gs::compiler::compile_sources(sources);
      if (!result.image) {
        std::fprintf(stderr, "%s", result.diagnostics.render_text().c_str());
        check(false, std::string("the generated ") + shape_name(shape) + " model compiles");
        return;
      }
      check(result.image->relations.size() == n, "the compiled " + std::string(shape_name(shape)) + " has N relations");
      image = gs::write_image(*result.image);
    });
  });
  return s;
}

std::string write_temp(const std::vector<uint8_t>& bytes, const std::string& tag) {
  const std::string path = (std::filesystem::temp_directory_path() / ("bench_scaling_" + std::to_string(getpid()) + "_" + tag + ".gsimg")).string();
  FILE* f = std::fopen(path.c_str(), "wb");
  check(f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size(), "writing " + path);
  if (f) std::fclose(f);
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it is measured, also into a file
  bool quick = false;
  size_t upto = SIZE_MAX;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--compile-only") == 0 && i + 2 < argc) {
      std::vector<uint8_t> image;
      const Shape shape = std::strcmp(argv[i + 1], "chain") == 0 ? Shape::Chain : Shape::Wide;
      const Sample s = compile_model(shape, std::stoul(argv[i + 2]), 1, image);
      std::printf("compiled %s of %zu relations: %.3f s CPU, peak heap %.1f MiB\n", shape_name(shape), s.n, s.seconds, s.heap_bytes / 1048576.0);
      return failures ? 1 : 0;
    } else if (std::strcmp(argv[i], "--upto") == 0 && i + 1 < argc) {
      upto = std::stoul(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_scaling [--quick] [--upto N]\n");
      return 2;
    }
  }
  const int repeats = quick ? 1 : 3;
  // 99,000 at the top: the chain has 2N + 1 declarations and the front end refuses more than 200,000
  // (compiler/limits.h), so 10^5 itself does not compile; the range is still 99x.
  std::vector<size_t> sizes = quick ? std::vector<size_t>{300, 3'000} : std::vector<size_t>{1'000, 3'000, 10'000, 30'000, 99'000};
  std::erase_if(sizes, [&](size_t n) { return n > upto; });
  if (sizes.size() < 2) {
    std::fprintf(stderr, "bench_scaling: --upto leaves fewer than two sizes\n");
    return 2;
  }
  static_assert(2 * 99'000 + 1 <= gs::compiler::kMaxDeclarations);
  std::printf("bench_scaling: generated models of N = %zu .. %zu relations\n", sizes.front(), sizes.back());

  // (a) front end, and the images the other axes load.
  std::map<Shape, std::vector<std::vector<uint8_t>>> images;
  for (Shape shape : {Shape::Chain, Shape::Wide}) {
    std::vector<Sample> samples;
    for (size_t n : sizes) {
      std::vector<uint8_t> image;
      samples.push_back(compile_model(shape, n, repeats, image));
      images[shape].push_back(std::move(image));
      std::printf("  (source %.2f MB)\n", double(source_bytes(generate(shape, n))) / 1e6);
    }
    check(images[shape].back().size() > 5 * images[shape].front().size(), "a bigger N writes a bigger image");
    print_axis(shape == Shape::Chain ? "(a) compile, chain" : "(a) compile, wide", samples, 1.1, true);
  }

  // (b) image load: the whole wide image, and the whole image plus one relation's cone.
  {
    std::vector<Sample> whole, cone;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const std::string path = write_temp(images[Shape::Wide][i], "wide" + std::to_string(i));
      Sample w{sizes[i], 0, 0}, c{sizes[i], 0, 0};
      w.seconds = best_of(repeats, [&] {
        w.heap_bytes = heap::peak_above_start([&] {
          gs::Registry reg = gs::Registry::load(path);
          check(reg.relation_count() == sizes[i], "the loaded image holds N relations");
        });
      });
      c.seconds = best_of(repeats, [&] {
        c.heap_bytes = heap::peak_above_start([&] {
          gs::Registry reg = gs::Registry::load(path);
          const uint32_t a = *reg.find_var("s0.a"), y = *reg.find_var("s0.y1");
          gs::Plan plan(reg, {{a, 1.0}}, {}, {y});
          check(plan.program().steps.size() == 2 && plan.evaluate_base()[0] == 2.0, "one wide target's cone is y1 = a + 1 = 2");
        });
      });
      std::filesystem::remove(path);
      whole.push_back(w), cone.push_back(c);
    }
    print_axis("(b) image load, whole image", whole, 1.1, true);
    // A loader that touched only the cone would be flat in N; an eager one reads every table.
    print_axis("(b) image load + one target's cone", cone, 0.2, true);
  }

  // (c) one target over the chain, and (d) the JIT on the same cone.
  {
    std::vector<Sample> plan_s, interp_s, resolve_s, jit_s;
    {  // libLLVM is loaded once per process, on the first compile: not part of any size's time
      gs::ConeProgram tiny;
      tiny.inputs = {0};
      tiny.outputs = {0};
      gs::Jit().compile(tiny);
    }
    std::vector<size_t> cone_steps;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const size_t n = sizes[i];
      gs::Registry reg(gs::read_image(images[Shape::Chain][i]));
      const uint32_t root = *reg.find_var("s0.x0"), end = *reg.find_var(chain_end(n));
      const std::map<uint32_t, double> at_zero{{root, 0.0}};
      std::optional<gs::Plan> plan;
      plan_s.push_back({n, best_of(repeats, [&] { plan.emplace(reg, at_zero, std::map<uint32_t, std::string>{}, std::vector<uint32_t>{end}, std::vector<uint32_t>{root}); }), 0});
      cone_steps.push_back(plan->program().steps.size());
      check(plan->complete() && plan->program().steps.size() == n, "the chain's cone holds its N relations");
      double value = 0;
      interp_s.push_back({n, best_of(repeats, [&] {
                            gs::CompiledCone cone = gs::compile_cone(plan->program(), gs::Evaluator::Interpreter);
                            const double in = 0;
                            cone.one(&in, &value);
                          }),
                          0});
      check(value == double(n), "the interpreter gives the chain's end as N");
      resolve_s.push_back({n, best_of(repeats, [&] {
                             gs::Resolver resolver(reg, at_zero, {});
                             auto res = resolver.resolve(end);
                             check(res.number && *res.number == double(n), "the resolver gives the chain's end as N");
                           }),
                           0});
      const int jit_repeats = n >= 30'000 ? 1 : repeats;
      jit_s.push_back({n, best_of(jit_repeats, [&] {
                         gs::Jit jit;  // a fresh JIT: no compiled cone is reused
                         gs::CompiledCone cone = jit.compile(plan->program());
                         const double in = 0;
                         cone.one(&in, &value);
                       }),
                       0});
      check(value == double(n), "the JIT gives the chain's end as N");
    }
    check(cone_steps.back() > 5 * cone_steps.front(), "a bigger N builds a longer cone");
    print_axis("(c) resolver selection + cone build (Plan)", plan_s, 1.1, false);
    print_axis("(c) interpreter build + one evaluation", interp_s, 1.1, false);
    print_axis("(c) GiNaC resolve of the chain's end", resolve_s, 1.1, false);
    print_axis("(d) JIT compile + one evaluation", jit_s, 1.1, false);
  }

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("process peak resident set: %.1f MiB\n", double(usage.ru_maxrss) / 1024.0);
  return failures ? 1 : 0;
}
