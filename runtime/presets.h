// Presets: scenario files in TOML (schema in docs/presets.md). Values carry their unit in the string
// ("0.36 USD/(kW*h)") and are converted to base units on load; a bare number is in the variable's
// display unit. A preset may extend others, which are applied first, in order; later values win.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/distribution.h"
#include "runtime/registry.h"

namespace gs {

// Bad input in a preset or on the command line; the message names the file and line when there is one.
struct PresetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What one preset file contributes to a layered preset, kept apart so that a later layer of the same role
// can take its place (see Preset::role).
struct PresetLayer {
  std::string name;
  std::vector<std::string> roles;                       // roles of this file and of the layers that extended it
  std::vector<std::string> notes;
  std::map<uint32_t, double> assignments;               // base units
  std::map<uint32_t, std::string> variants;
  std::vector<std::pair<std::string, uint32_t>> targets;
  std::map<uint32_t, double> expected;
  std::map<uint32_t, Distribution> uncertain;
};

struct Preset {
  std::string name, description, source, path;
  // A layer's role (e.g. "workload"): when a preset extends a layer whose role is already among its earlier
  // layers, the earlier one and everything it brought in are dropped, so `extends = ["default",
  // "workload/llama3_8b"]` replaces the default's workload instead of inheriting its pins.
  std::string role;
  std::vector<PresetLayer> parts;                       // the layers that survived, in order; the fields below merge them
  std::vector<std::string> notes;
  std::vector<std::string> layers;                      // presets applied, in order, ending with this one
  std::map<uint32_t, double> assignments;               // base units
  std::map<uint32_t, std::string> variants;             // variable -> variant key
  std::vector<std::pair<std::string, uint32_t>> targets;  // label -> variable, in file order
  std::map<uint32_t, double> expected;                  // base units; for tests and reports
  std::map<uint32_t, Distribution> uncertain;           // inputs given as an interval or a distribution
};

// "0.36 USD/(kW*h)" or a bare "0.36" (the variable's display unit) in base units. A unit of another
// dimension is an error naming both units.
double parse_quantity(const Registry& reg, uint32_t var, const std::string& text);

// A variable by name, or an error with a "did you mean" suggestion. `what` names the role in the message.
uint32_t lookup_variable(const Registry& reg, const std::string& name, const std::string& what = "variable");

// Command-line forms: "NAME=VALUE[ UNIT]" and "NAME=KEY".
std::pair<uint32_t, double> parse_assignment(const Registry& reg, const std::string& text);
std::pair<uint32_t, std::string> parse_selector(const Registry& reg, const std::string& text);

// Every file a library loads is parsed once: later loads of the same file (by canonical path) are copies
// of the first, as long as the file and everything it extends keep their size and modification time.
// `validate` loads the same layered presets for every row, so this saves most of its preset work. Copies
// of a library share its cache; the cache is thread-safe.
class PresetLibrary {
 public:
  // `dir` is the library's root (Workspace::presets_dir).
  PresetLibrary(const Registry& reg, std::string dir);

  // A name is looked up as <dir>/<name>.toml; anything ending in .toml or holding a '/' is a path.
  Preset load(const std::string& name_or_path) const;
  // The same preset without copying it: the library's cached one, shared (validate reads a row's
  // layered presets for every row, and a copy of a preset was a tenth of its time).
  std::shared_ptr<const Preset> load_shared(const std::string& name_or_path) const;
  // Several presets layered in order, as if one file extended them all: a later layer with a role
  // replaces the earlier ones of that role. `loaded`, when given, receives each named preset as loaded.
  Preset compose(const std::vector<std::string>& names, std::vector<Preset>* loaded = nullptr) const;
  // Parses TOML text (for tests and the fuzzer); `path` is used in messages and to find `extends`.
  Preset parse(const std::string& text, const std::string& path) const;
  std::vector<std::string> names() const;  // presets in the directory, sorted
  const std::string& dir() const { return dir_; }
  // True for a preset file outside this library's directory: one the user wrote, not a shipped one.
  bool is_external(const Preset& p) const;
  // Parses done by this library and its copies so far (one per file read; cached loads add none).
  size_t files_parsed() const;

 private:
  struct Cache;
  struct Loading;
  std::shared_ptr<const Preset> load_layered(const std::string& name_or_path, const std::string& base_dir, Loading& loading) const;
  Preset parse_layered(const std::string& text, const std::string& path, Loading& loading) const;
  std::string locate(const std::string& name_or_path, const std::string& base_dir) const;

  const Registry& reg_;
  std::string dir_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace gs
