// libFuzzer target for the TOML preset reader: any text parsed as a preset against the shipped model
// either loads or fails with a PresetError (a message for the user); anything else is a defect.
#include <cstdint>
#include <string>

#include "runtime/presets.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gs::Registry reg(gs::fuzz::model_image());
  static const gs::PresetLibrary library(reg, gs::fuzz::source_root() + "/presets");
  try {
    const gs::Preset p = library.parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml");
    (void)p;
  } catch (const gs::PresetError&) {
  }
  return 0;
}
