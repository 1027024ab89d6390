// What the command line prints: resolutions, trace trees, scenario reports and registry statistics,
// each as text for people and as JSON (SI values plus unit strings) for programs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/resolver.h"

namespace gs {

// Which optional sections the text form of a resolution shows. JSON always carries every section.
struct ResolveView {
  bool trace = false;
  bool missing = false;      // details of each missing input (their names are always shown)
  bool constraints = false;  // every check (constraints, domains, validity), not only the violated ones
  bool validity = false;     // every approximation-validity check (a part of `constraints`)
  bool missing_families = false;  // the missing inputs grouped by family and category
  // Everything that stands between the scenario and a trustworthy number: each missing input described
  // (as `missing`), the violated checks and a count of the undecided ones, or a line saying there is none.
  bool diagnostics = false;
};

std::string resolution_text(const Registry& reg, const Resolution& res, const ResolveView& view);
// `full` false is the compact document: no computed steps (the trace) and, of the constraints and
// validity checks, only the violated ones (`violations` still counts them all).
std::string resolution_json(const Registry& reg, const Resolution& res, bool full = true);
// The same document as a JSON value, for callers that add to it (resolve's interval and memory fit).
nlohmann::ordered_json resolution_document(const Registry& reg, const Resolution& res, bool full = true);

// What the compact document shows of a resolution, without its symbolic values: plain data that any
// thread may copy and print (GiNaC's reference counts are not thread-safe). The server's fast path
// (runtime/serve/resolve_cache.h) fills it from the interpreter and prints it with the overload below.
struct ResolutionFacts {
  uint32_t target = 0;
  std::optional<double> number;
  std::string formula;  // the value's text when `number` is empty
  std::vector<MissingInput> missing;
  std::vector<uint32_t> assigned;
  std::vector<Override> overrides;
  std::vector<Check> constraints, validity;
};
ResolutionFacts resolution_facts(const Resolution& res);
// resolution_json(reg, res, false) for the facts of `res`: the same document, byte for byte.
std::string resolution_json(const Registry& reg, const ResolutionFacts& facts);

// The target's cone as a tree: each variable with its value, unit, relation and source location.
// max_depth >= 0 stops the tree that many levels below the target and says how many inputs are hidden.
std::string trace_text(const Registry& reg, const Resolution& res, int max_depth = -1);
std::string trace_json(const Registry& reg, const Resolution& res);

std::string stats_text(const Registry& reg, const std::string& image_path);
std::string stats_json(const Registry& reg, const std::string& image_path);

// Missing inputs grouped by family (name prefix) and boundary category, largest group first; a variable
// missing for several targets counts once.
struct MissingFamily {
  std::string family, category;
  std::vector<uint32_t> vars;      // sorted by name
  std::vector<std::string> names;  // theirs, in the same order
};
std::vector<MissingFamily> missing_families(const Registry& reg, const std::vector<MissingInput>& missing);
// One line per family, `indent` spaces in: "family=cluster.node category=primitive-root count=6 names=a, b, c, d, +2 more".
std::string missing_families_text(const std::vector<MissingFamily>& families, size_t indent);

struct TargetReport {
  std::string label;
  uint32_t var = 0;
  std::string status;  // ok (a number, nothing violated), issues (missing inputs or violations)
  Resolution resolution;
};

struct ScenarioReport {
  Preset preset;
  std::vector<TargetReport> targets;
  std::vector<Override> overrides;  // every assignment of the preset that pins a computable variable
  std::string status;               // ok when every target is
  size_t issue_count = 0;           // missing inputs, violations and unmet [expected] values, over all targets
};


// Optional sections of the text report: each target's missing inputs and violated checks by name, and
// the missing inputs grouped by family.
struct ScenarioView {
  bool details = false, missing_families = false;
};

// Resolves each target under the preset (plus any extra assignments and selectors already merged in).
ScenarioReport scenario_report(const Registry& reg, const Preset& preset,
                               const std::vector<std::pair<std::string, uint32_t>>& targets, ResolveOptions options);
std::string scenario_text(const Registry& reg, const ScenarioReport& report, const ScenarioView& view = {});
std::string scenario_json(const Registry& reg, const ScenarioReport& report);

}  // namespace gs
