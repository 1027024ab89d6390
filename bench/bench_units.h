// The unit table of the shipped model's 00_units.gstack, compiled once per process, and the built model's
// checkpoint-interval rules, for benchmarks that load simulator scenarios (bench_sim.cpp,
// bench_sim_scale.cpp). Including it also points the simulator at the source tree's model-inputs file,
// as the front end does before a command runs (tests/unit/support/source_workspace.h).
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "compiler/compile.h"
#include "runtime/registry.h"
#include "runtime/sim/interval_model.h"
#include "runtime/sim/scenario_toml.h"
#include "tests/unit/support/source_workspace.h"

inline const gs::UnitTable& shipped_units() {
  static const gs::UnitTable table = [] {
    std::ifstream in(GSTACK_SOURCE_DIR "/model/00_units.gstack");
    std::stringstream text;
    text << in.rdbuf();
    return gs::compiler::compile_sources({gs::compiler::SourceFile::from_text("00_units.gstack", text.str())}).image->units;
  }();
  return table;
}

// A shipped simulator scenario with the model's Young and Daly rules attached, as `gpu-stack simulate`
// loads it.
inline gs::sim::Scenario shipped_scenario(const std::string& name) {
  static const std::shared_ptr<const gs::sim::CheckpointIntervals> rules =
      gs::sim::CheckpointIntervals::from_model(gs::Registry::load(GSTACK_BINARY_DIR "/model.gsimg"));
  gs::sim::Scenario sc = gs::sim::load_scenario_toml(GSTACK_SOURCE_DIR "/presets/sim/" + name, shipped_units());
  sc.intervals = rules;
  return sc;
}
