// The model zoo: shipped workload and hardware presets listed by name, workload names as users type
// them, and Hugging Face-style config.json files turned into workload presets. The config-key ->
// variable mapping is data (presets/import/hf_config.toml); this code only applies it.
#pragma once

#include <string>
#include <vector>

#include "runtime/presets.h"

namespace gs::zoo {

struct CatalogEntry {
  std::string id;           // preset path under the presets folder, e.g. "workload/llama3_405b"
  std::string name, description, source;
  std::string error;        // non-empty when the preset does not load
};

// Every preset in <presets>/<folder>/, sorted by id, with the name/description/source it declares.
std::vector<CatalogEntry> catalog(const PresetLibrary& lib, const std::string& folder);

// "llama3-405b", "llama3_405b" or "workload/llama3_405b" -> "workload/llama3_405b"; a path (".toml" or
// '/') is returned unchanged. Throws PresetError with a "did you mean" when no such workload ships.
std::string workload_preset(const PresetLibrary& lib, const std::string& name);

struct ImportResult {
  std::string toml;                      // the workload preset
  bool moe = false, mla = false;
  std::vector<std::string> not_found;    // variables the configuration did not give (left to the scenario)
};

// Bad JSON, a bad mapping file or a config without the core keys throw PresetError naming
// file:line:col where there is one.
ImportResult import_hf_config(const std::string& json_text, const std::string& json_path, const std::string& map_path,
                              const std::string& preset_name);

}  // namespace gs::zoo
