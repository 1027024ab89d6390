// Shared helpers for the simulator tests: the model's unit table, and scenarios.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "compiler/compile.h"
#include "image/image.h"
#include "runtime/registry.h"
#include "runtime/sim/interval_model.h"
#include "runtime/sim/job_model.h"
#include "runtime/sim/scenario_toml.h"

namespace gs::sim::testing {

// A registry image of model/00_units.gstack alone, so these tests do not depend on the rest of the model
// compiling (the gpu-stack main reads the same unit table from the full image).
inline const gs::Image& units_image() {
  static const gs::Image img = [] {
    std::ifstream in(std::string(GSTACK_SOURCE_DIR) + "/model/00_units.gstack");
    std::stringstream text;
    text << in.rdbuf();
    auto r = gs::compiler::compile_sources({gs::compiler::SourceFile::from_text("00_units.gstack", text.str())});
    if (!r.image) throw std::runtime_error("model/00_units.gstack does not compile");
    return *r.image;
  }();
  return img;
}

inline const gs::UnitTable& units() { return units_image().units; }

// The built model's image, for the commands that take an image path: they read its unit table and
// compile its checkpoint-interval rules.
inline std::string model_image_path() { return GSTACK_BINARY_DIR "/model.gsimg"; }

// The built model's checkpoint-interval rules (Young, Daly), compiled once: policies with those cadences
// read their intervals from the model, as `gpu-stack simulate` does.
inline std::shared_ptr<const CheckpointIntervals> intervals() {
  static const std::shared_ptr<const CheckpointIntervals> rules =
      CheckpointIntervals::from_model(gs::Registry::load(model_image_path()));
  return rules;
}

// What the model gives a job that names its model_preset (step times per data-parallel degree, a power
// cap's clock share), from the built model and the source tree's presets, as `gpu-stack simulate` does.
inline void attach_job_model(Scenario& sc) {
  const gs::Registry reg = gs::Registry::load(model_image_path());
  gs::sim::attach_job_model(sc, reg, gs::PresetLibrary(reg, std::string(GSTACK_SOURCE_DIR) + "/presets"));
}

inline Scenario with_intervals(Scenario sc) {
  sc.intervals = intervals();
  return sc;
}

inline Scenario load_preset(const std::string& name) {
  return with_intervals(load_scenario_toml(std::string(GSTACK_SOURCE_DIR) + "/presets/sim/" + name, units()));
}

inline Scenario parse(const std::string& toml) { return with_intervals(parse_scenario_toml(toml, units(), "test.toml")); }

// A small single-site job with sourced-looking inputs (all marked as assumptions) and one failure class.
// `extra` is appended verbatim, so tests can add failures, events or policy settings.
inline std::string small_scenario(const std::string& policy_table, const std::string& extra = "", const std::string& horizon = "2 day") {
  return R"TOML(schema = "gpu-stack.sim-scenario.v1"
id = "small"
seed = 7
horizon = ")TOML" + horizon + R"TOML("
[model]
"training.t_step" = { value = "2 s", source = "assumption", note = "test" }
"arch.tokens_per_step" = { value = "1000 token", source = "assumption", note = "test" }
"training.checkpoint.state_bytes" = { value = "100 GB", source = "assumption", note = "test" }
"training.restart_overhead" = { value = "60 s", source = "assumption", note = "test" }
"training.failure_detection_time" = { value = "30 s", source = "assumption", note = "test" }
"training.elastic.reconfig_time" = { value = "20 s", source = "assumption", note = "test" }
"cluster.state_transfer.bw" = { value = "10 GB/s", source = "assumption", note = "test" }
"training.checkpoint.memory_write_time" = { value = "1 s", source = "assumption", note = "test" }
"training.checkpoint.memory_restore_time" = { value = "10 s", source = "assumption", note = "test" }
"gpu.power.total" = { value = "700 W", source = "assumption", note = "test" }
"gpu.power.idle" = { value = "100 W", source = "assumption", note = "test" }
"cluster.node.host_power" = { value = "1 kW", source = "assumption", note = "test" }
"thermal.dc.pue" = { value = "1.2", source = "assumption", note = "test" }
"econ.power.price_kwh" = { value = "0.1 USD/(kW*h)", source = "assumption", note = "test" }
[[storage]]
id = "store"
write_bw = { value = "10 GB/s", source = "assumption", note = "test" }
read_bw = { value = "20 GB/s", source = "assumption", note = "test" }
[[site]]
id = "dc"
source = "assumption"
note = "test"
nodes = 36
gpus_per_node = 8
storage = "store"
[[job]]
id = "train"
source = "assumption"
note = "test"
placement = [{ site = "dc", nodes = 32 }]
replica_nodes = 4
[job.policy]
)TOML" + policy_table + R"TOML(
[[failure]]
id = "gpu.fault"
category = "GPU"
unit = "gpu"
observed = { count = 100, window = "10 day", units = 256, source = "assumption", note = "test" }
repair = { median = "6 h", sigma = 0.5, source = "assumption", note = "test" }
[[failure]]
id = "software"
category = "Dependency"
unit = "job"
observed = { count = 10, window = "10 day", units = 1, source = "assumption", note = "test" }
)TOML" + extra;
}

}  // namespace gs::sim::testing
