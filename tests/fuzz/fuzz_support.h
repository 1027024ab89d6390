// Shared pieces of the libFuzzer targets: reading a file once at start-up, and the shipped model compiled
// in memory (the preset, image and scenario readers need its variables and units).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/compile.h"

namespace gs::fuzz {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz: cannot read %s\n", path.c_str());
    std::abort();
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The source tree: GSTACK_FUZZ_ROOT lets the script point at another checkout.
inline std::string source_root() {
  const char* env = std::getenv("GSTACK_FUZZ_ROOT");
  return env ? env : GSTACK_SOURCE_DIR;
}

// model/ compiled once; aborts when it does not compile (the fuzzers would test nothing).
inline const Image& model_image() {
  static const Image img = [] {
    auto r = compiler::compile_paths({source_root() + "/model"});
    if (!r.image) {
      std::fprintf(stderr, "fuzz: model/ does not compile:\n%s", r.diagnostics.render_text().c_str());
      std::abort();
    }
    return *r.image;
  }();
  return img;
}

}  // namespace gs::fuzz
