// Helpers for tests over the shipped model: the build's compiled image, the source tree's presets, and a
// preset as a scenario point. Loaded once per test executable.
#pragma once

#include <string>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/uq/commands.h"

namespace gs::testing {

inline const Registry& shipped_model() {
  static Registry reg = Registry::load(std::string(GSTACK_BINARY_DIR) + "/model.gsimg");
  return reg;
}

inline const PresetLibrary& shipped_presets() {
  static PresetLibrary lib(shipped_model(), std::string(GSTACK_SOURCE_DIR) + "/presets");
  return lib;
}

// A shipped preset's assignments and selectors (its uncertainty left out).
inline ScenarioPoint preset_point(const std::string& preset) {
  Preset p = shipped_presets().load(preset);
  return {p.assignments, p.variants, {}};
}

}  // namespace gs::testing
