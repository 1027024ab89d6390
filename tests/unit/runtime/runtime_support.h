// Shared setup for the runtime tests: the small test model (tests/unit/runtime/data, compiled by the
// build into tests/runtime_test.gsimg), the shipped model when it is built, and the source presets.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "runtime/presets.h"
#include "runtime/registry.h"

namespace gs::testing {

inline const Registry& mini() {
  static Registry reg = Registry::load(std::string(GSTACK_BINARY_DIR) + "/tests/runtime_test.gsimg");
  return reg;
}

inline std::string shipped_image() { return std::string(GSTACK_BINARY_DIR) + "/model.gsimg"; }

inline uint32_t id(const Registry& reg, const std::string& name) {
  auto v = reg.find_var(name);
  REQUIRE_MESSAGE(v, "no variable " << name);
  return *v;
}

inline uint32_t id(const std::string& name) { return id(mini(), name); }

inline Preset source_preset(const Registry& reg, const std::string& name) {
  return PresetLibrary(reg, std::string(GSTACK_SOURCE_DIR) + "/presets").load(name);
}

}  // namespace gs::testing
