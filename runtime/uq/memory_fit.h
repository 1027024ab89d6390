// Whether a layout fits in HBM, for the commands that answer questions under a layout (`resolve`,
// `sweep`). Which model constraint decides it, and the parts of the per-GPU memory shown beside it, are
// data (presets/memory_fit.toml, [memory]); the constraint's two sides are the memory a GPU needs and the
// capacity it has. A layout that does not fit is reported as not fitting, never as a normal answer. The check
// evaluates through the Plan layer's reference interpreter (no GiNaC) wherever doubles decide it safely.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/registry.h"

namespace gs {

struct MemoryFitCheck {
  std::string path;            // the file it was read from
  uint32_t constraint = 0;     // relation id: required <= capacity
  uint32_t required = 0;       // the constraint's left side: HBM one GPU needs
  uint32_t capacity = 0;       // its right side: HBM one GPU has
  std::string column = "fits"; // the sweep column
  struct Part {
    std::string name;
    uint32_t var = 0;
  };
  std::vector<Part> parts;     // the breakdown of `required`, in display order
};

// <presets_dir>/memory_fit.toml. Nothing when the file is absent (a user's own presets folder) or the
// model has no such constraint (a partial model, such as the runtime's test model); throws PresetError
// with FILE:LINE:COL on a malformed file.
std::optional<MemoryFitCheck> load_memory_fit_check(const Registry& reg, const std::string& presets_dir);
// Strict: a constraint or part the model does not know is an error too, unless `partial_model` (then a
// missing constraint gives nothing and a missing part is left out).
std::optional<MemoryFitCheck> parse_memory_fit_check(const Registry& reg, const std::string& text, const std::string& path,
                                                     bool partial_model = false);

struct MemoryFit {
  bool fits = true;
  double required = 0, capacity = 0;                      // base units (bytes)
  std::vector<std::pair<std::string, double>> parts;      // name -> bytes; a part the scenario cannot price is left out
};

// The check under a scenario; nothing when the scenario does not price the memory or the capacity (no
// training layout, or a bare hardware preset).
std::optional<MemoryFit> check_memory_fit(const Registry& reg, const MemoryFitCheck& check, const std::map<uint32_t, double>& assignments,
                                          const std::map<uint32_t, std::string>& variants);

// "does not fit in HBM: needs X per GPU, has Y (constraint)" and one indented line per part.
std::string memory_fit_text(const Registry& reg, const MemoryFitCheck& check, const MemoryFit& fit);

}  // namespace gs
