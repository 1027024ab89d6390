// The unit table of the shipped model's 00_units.gstack, compiled once per process, for benchmarks that
// load simulator scenarios (bench_sim.cpp, bench_sim_scale.cpp).
#pragma once

#include <fstream>
#include <sstream>

#include "compiler/compile.h"

inline const gs::UnitTable& shipped_units() {
  static const gs::UnitTable table = [] {
    std::ifstream in(GSTACK_SOURCE_DIR "/model/00_units.gstack");
    std::stringstream text;
    text << in.rdbuf();
    return gs::compiler::compile_sources({gs::compiler::SourceFile::from_text("00_units.gstack", text.str())}).image->units;
  }();
  return table;
}
