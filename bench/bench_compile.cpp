// In-process timings of the front end on the shipped model: parse and check everything, write the image,
// and read it back (what every runtime command pays first). The units prelude alone is the baseline
// measured in the same run, so the ratio says what the model itself costs.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/compile.h"

namespace {

std::vector<gs::compiler::SourceFile> load(const std::vector<std::string>& names) {
  std::vector<gs::compiler::SourceFile> out;
  for (const auto& n : names) {
    std::ifstream in(n, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    out.push_back(gs::compiler::SourceFile::from_text(n, ss.str()));
  }
  return out;
}

// The model's files in load order, read once so the timings exclude the disk.
const std::vector<gs::compiler::SourceFile>& model() {
  static const auto sources = [] {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(GSTACK_SOURCE_DIR "/model"))
      if (e.path().extension() == ".gstack") names.push_back(e.path().string());
    std::sort(names.begin(), names.end());
    return load(names);
  }();
  return sources;
}

const gs::Image& model_image() {
  static const gs::Image img = [] {
    auto r = gs::compiler::compile_sources(model());
    if (!r.image) {
      fprintf(stderr, "%s", r.diagnostics.render_text().c_str());
      std::abort();
    }
    return *r.image;
  }();
  return img;
}

void BM_CheckUnitsPrelude(benchmark::State& state) {
  const std::vector<gs::compiler::SourceFile> units{model().front()};
  for (auto _ : state) benchmark::DoNotOptimize(gs::compiler::compile_sources(units));
}
BENCHMARK(BM_CheckUnitsPrelude)->Unit(benchmark::kMillisecond);

void BM_CheckModel(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(gs::compiler::compile_sources(model()));
  state.counters["variables"] = double(model_image().vars.size());
  state.counters["relations"] = double(model_image().relations.size());
}
BENCHMARK(BM_CheckModel)->Unit(benchmark::kMillisecond);

void BM_WriteImage(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    auto out = gs::write_image(model_image());
    bytes = out.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["bytes"] = double(bytes);
}
BENCHMARK(BM_WriteImage)->Unit(benchmark::kMicrosecond);

void BM_ReadImage(benchmark::State& state) {
  const auto bytes = gs::write_image(model_image());
  for (auto _ : state) benchmark::DoNotOptimize(gs::read_image(bytes));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
}
BENCHMARK(BM_ReadImage)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
