// What the registry and the presets directory hold, as lists: variables filtered by system, name
// prefix, kind, unit dimension or text (`gpu-stack list`, `gpu-stack search`), and the presets with
// their description and source (`gpu-stack list-presets`).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"

namespace gs {

// Every filter that is set must hold. `unit` matches by dimension ("W" finds MW and W variables);
// `text` matches every one of its words, case-insensitively, in the name, description or doc comment.
struct VariableQuery {
  std::string system, prefix, kind, unit, text;
};

// Variables sorted by name. Bad input (an unknown system, kind or unit) throws PresetError with a hint.
std::vector<uint32_t> find_variables(const Registry& reg, const VariableQuery& query);
std::string variables_text(const Registry& reg, const std::vector<uint32_t>& vars);
std::string variables_json(const Registry& reg, const VariableQuery& query, const std::vector<uint32_t>& vars);

struct PresetEntry {
  std::string name, path, description, source;
  size_t assignments = 0, variants = 0, uncertain = 0;
  std::string error;  // the preset does not load, and why
};

// The presets under `presets_dir` (or its sub-folder `sub`), loaded for their description and source;
// documents that are not presets (simulator scenarios, the estimate's data) are left out. An unknown
// or escaping sub-folder throws PresetError.
std::vector<PresetEntry> preset_catalog(const PresetLibrary& lib, const std::string& presets_dir, const std::string& sub = "");
std::string presets_text(const std::vector<PresetEntry>& presets);
std::string presets_json(const std::vector<PresetEntry>& presets);

}  // namespace gs
