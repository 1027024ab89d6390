// libFuzzer target for the simulator's scenario reader (runtime/sim/scenario_toml.cpp) with the shipped
// model's unit table. Bad input must end in std::invalid_argument (a message for the user).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/sim/scenario_toml.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)gs::sim::parse_scenario_toml(std::string(reinterpret_cast<const char*>(data), size),
                                       gs::fuzz::model_image().units, "fuzz.toml");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
