// scenario-audit: for every preset, whether it states a source, how much it assigns, whether its
// targets resolve, and which families of inputs are still missing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/registry.h"
#include "runtime/report.h"

namespace gs {

struct AuditRequest {
  std::string presets_dir;
  std::vector<std::string> presets;  // names or paths; empty: every preset under presets_dir
  std::vector<std::string> targets;  // [LABEL=]NAME; replaces each preset's own [targets]
  bool missing_families = false;     // text: list the missing families under each preset
  bool fail_on_issues = false;       // exit 1 when any preset has issues or does not load
};

struct AuditTarget {
  std::string label;
  uint32_t var = 0;
  std::string name, unit;  // the variable's name and declared unit
  std::string status;      // ok, issues
  std::optional<double> value;         // base units
  std::optional<std::string> display;  // with value: in the display unit
  std::vector<std::string> missing;    // names of the missing inputs
  size_t violations = 0;
};

struct AuditEntry {
  std::string name;  // as listed (relative to the presets directory) or as given
  std::string path;
  std::string status;  // ok, issues, no-targets, error
  std::string error;   // when it does not load
  std::string source;
  size_t assignments = 0, variants = 0, uncertain = 0;
  std::vector<AuditTarget> targets;
  std::vector<MissingFamily> families;  // over all targets, by (-count, family)
  size_t issues = 0;  // missing inputs + violations over all targets, or 1 for a preset that does not load
};

struct ScenarioAuditReport {
  std::vector<AuditEntry> presets;
  size_t ok = 0, with_issues = 0, errors = 0, no_targets = 0, unsourced = 0;  // presets by status; unsourced: loading without a source
  size_t issues = 0;  // over all presets
};
void to_json(nlohmann::ordered_json& j, const ScenarioAuditReport& r);

// Bad input (an unknown --target, an unknown --preset) throws PresetError.
ScenarioAuditReport scenario_audit(const Registry& reg, const AuditRequest& req);

}  // namespace gs
