// The scenario an analysis runs under (presets layered, then command-line assignments and selectors),
// where each assigned value came from, and the presets a directory holds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/distribution.h"
#include "runtime/presets.h"
#include "runtime/registry.h"

namespace gs {

// Where an assignment's final value was written: a preset file (its name as loaded) or the command line.
struct Origin {
  std::string layer;   // preset name, or "command line"
  std::string path;    // the preset file; empty for the command line
  bool sourced = false;  // that layer states a `source`
};

struct AnalysisScenario {
  std::string label;  // the presets joined with " + ", or "(no preset)"
  std::map<uint32_t, double> assignments;  // base units
  std::map<uint32_t, std::string> variants;
  std::map<uint32_t, Distribution> uncertain;  // from the presets' [uncertainty] tables
  std::map<uint32_t, Origin> origins;          // one per assignment
  std::vector<Preset> presets;                 // as loaded, in order
};

// Presets in order (later wins), then the command line's NAME=VALUE assignments and NAME=KEY selectors.
// Throws PresetError on bad input, like the other commands.
AnalysisScenario load_scenario(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir,
                               const std::vector<std::string>& presets, const std::vector<std::string>& assigns = {},
                               const std::vector<std::string>& variants = {});

// For each assignment of the preset at `path`, the layer (this file or one it extends) that wrote its
// final value. A base's value that the file repeats unchanged stays attributed to the base.
std::map<uint32_t, Origin> assignment_origins(const PresetLibrary& lib, const std::string& presets_dir, const std::string& path);

// A TOML file under the presets directory. Files with a top-level `schema` key are other documents
// (simulator scenarios) and are listed with the reason they are skipped.
struct PresetFile {
  std::string name;     // relative to the directory, without ".toml": "packs/hbm3_h100"
  std::string path;
  std::string skipped;  // non-empty: not a preset, and why
};
std::vector<PresetFile> preset_files(const std::string& dir);  // recursive, sorted by name

// The preset next-work and the demo treat as the default scenario: presets/default.toml when it
// exists, else the dense training fixture.
std::string default_preset_name(const std::string& presets_dir);

// Variance of a distribution (base units squared).
double distribution_variance(const Distribution& d);

}  // namespace gs
