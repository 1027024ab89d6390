// Shared setup for the analysis tests: the shipped model, the small runtime test model, the source
// presets, small models compiled from text (in memory or through temporary files), and a temporary
// directory that cleans up after itself.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "runtime/analysis/scenario.h"
#include "runtime/presets.h"
#include "runtime/registry.h"
#include "tests/unit/runtime/runtime_support.h"  // mini(), id()

namespace gs::testing {

inline const Registry& model() {
  static Registry reg = Registry::load(std::string(GSTACK_BINARY_DIR) + "/model.gsimg");
  return reg;
}

inline std::string presets_dir() { return std::string(GSTACK_SOURCE_DIR) + "/presets"; }

inline AnalysisScenario scenario(const Registry& reg, const std::vector<std::string>& presets,
                                 const std::vector<std::string>& assigns = {}) {
  PresetLibrary lib(reg, presets_dir());
  return load_scenario(reg, lib, presets_dir(), presets, assigns);
}

inline bool close(double a, double b, double rel) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)) + 1e-300;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("gstack-analysis-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// Compiles the real units prelude and physics system plus `body` (written to `file` when given, so
// the image records a real path and hash); fails the test on any diagnostic.
inline Image compile_model(const std::string& body, const std::string& file = "") {
  std::vector<compiler::SourceFile> sources;
  const std::string src = GSTACK_SOURCE_DIR;
  compiler::CompileResult r;
  if (file.empty()) {
    sources.push_back(compiler::SourceFile::from_text("00_units.gstack", read_text(src + "/model/00_units.gstack")));
    sources.push_back(compiler::SourceFile::from_text("01_physics.gstack", read_text(src + "/model/01_physics.gstack")));
    sources.push_back(compiler::SourceFile::from_text("t.gstack", body));
    r = compiler::compile_sources(sources);
  } else {
    write_text(file, body);
    r = compiler::compile_paths({src + "/model/00_units.gstack", src + "/model/01_physics.gstack", file});
  }
  INFO(r.diagnostics.render_text());
  REQUIRE(r.image.has_value());
  return std::move(*r.image);
}

}  // namespace gs::testing
