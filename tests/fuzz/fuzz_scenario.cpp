// libFuzzer target for the simulator's scenario reader (runtime/sim/scenario_toml.cpp) with the shipped
// model's unit table. Bad input must end in std::invalid_argument (a message for the user).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/sim/inputs.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/workspace.h"
#include "tests/fuzz/fuzz_support.h"

// A scenario's [model] table is checked against the simulator's declared model inputs, a file the front
// end names through the workspace before any command runs; the fuzzer names the source tree's the same way.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gs::Workspace ws;
  ws.presets_dir = gs::fuzz::source_root() + "/presets";
  gs::sim::use_model_inputs(ws.sim_model_inputs());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)gs::sim::parse_scenario_toml(std::string(reinterpret_cast<const char*>(data), size),
                                       gs::fuzz::model_image().units, "fuzz.toml");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
