// The data half of the row-to-scenario mapping: presets/validate/mapping.toml names every model variable,
// variant key, preset and hardware rule the mapping uses, so no C++ here names a model variable. The C++
// refers to roles ("layers", "tp", "tokens_per_s"), and this table says which variable plays each role.
#pragma once

#include <map>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

namespace gs::validate {

struct HardwareRule {
  std::string preset;
  std::vector<std::string> all;   // every one of these must appear in the normalised text
  std::vector<std::string> none;  // none of these may appear
  // Mixture-of-experts rows on this part also layer this preset (the part's measured grouped-GEMM rate), or
  // its `_<precision>` sibling when the row's precision has one; empty when nothing is measured.
  std::string moe;
};

// How a stated `act_recompute` cell is read (see [[recompute]] in mapping.toml): the first rule whose
// strings all appear in the normalised cell (and, when the rule names hardware, one of whose hardware strings
// appears in the row's hardware cell) gives the recomputed share of the layer's forward GEMMs, optionally the
// recomputed share of its attention core, and the activation-memory mode; its `why` is listed among the row's
// assumptions.
struct RecomputeRule {
  std::vector<std::string> all;        // normalised strings that must all appear
  std::vector<std::string> hardware;   // normalised hardware names, one of which must appear (empty: any hardware)
  double fraction = 0;                 // recompute fraction in [0, 1]
  std::string fraction_variant;        // or: the role (in [variants]) of the recompute-fraction variant the model derives it with
  std::optional<double> attention;     // recomputed share of the attention core in [0, 1] (role attn_recompute); unset: the model's default
  std::string memory;                  // role of the activation-memory variant: recompute_none, _selective or _full
  std::string why;
};

// How a framework schedules one parallel axis's collectives (see [[schedule]] in mapping.toml): for each axis
// the first rule whose strings all appear (and none of `none`) in the row's normalised framework, ZeRO/FSDP,
// moe and notes cells names the preset that prices the axis's overlap; its `why` is listed among the assumptions.
// A rule with no `all` strings matches every row (the axis's default schedule).
struct ScheduleRule {
  std::string axis;               // "dp", "tp", ... (free text: one rule per axis applies)
  std::vector<std::string> all;   // normalised strings that must all appear
  std::vector<std::string> none;  // normalised strings that may not appear
  std::string preset;
  std::string why;
};

struct FitParameterSpec {
  std::string name;   // model variable
  bool share = true;  // fitted as a logit (a share in (0, 1)) or as a log (a positive value)
  double start = 0;   // in the variable's unit
  std::string why;
};

// Cells a named model's published configuration states, or the defaults of the framework version a row
// names (see [[model_facts]] in mapping.toml).
struct ModelFact {
  std::vector<std::string> family;           // normalised strings that must all appear in the `model_family` column
  std::vector<std::string> model;            // ... and in the `model` column
  std::vector<std::string> framework;        // ... and in the `framework` column (that version's shipped defaults)
  std::vector<std::string> notes;            // ... and in the `notes` column (a setting the source's own notes imply)
  // column -> value; a value "{col}" is the row's own `col` cell (a default defined by another setting,
  // such as "as many pipeline micro-batches as pipeline stages"), and the fact is skipped when that cell is empty.
  std::map<std::string, std::string> cells;
  std::string source;
};

struct MappingTable {
  std::string path;                                // where it was read
  std::vector<std::string> default_runs;           // relative to the data folder
  std::map<std::string, std::string> presets;      // role -> preset name
  std::map<std::string, std::string> variables;    // role -> model variable
  std::map<std::string, double> constants;         // role -> value
  std::map<std::string, std::string> variants;     // role -> selector variable or variant key
  std::map<std::string, std::string> precision;    // recipe -> variant key / preset suffix
  std::map<std::string, std::string> targets;      // metric -> model variable
  std::vector<std::string> breakdown;              // step-time components, in file order
  std::vector<HardwareRule> hardware;              // first match wins
  std::vector<RecomputeRule> recompute;            // first match wins
  std::vector<ScheduleRule> schedule;              // first match per axis wins
  // Unstated setting (micro_batch, interleave, recompute) -> the knob of the strategy search space
  // (presets/strategy/knobs.toml) that chooses it, and its candidate values in that knob's terms.
  struct UnstatedKnob {
    std::string knob;
    std::vector<double> values;
  };
  std::map<std::string, UnstatedKnob> unstated;
  double near_best_pct = 5;
  std::vector<FitParameterSpec> fit;               // calibrate's default parameters
  std::vector<ModelFact> model_facts;

  // Each throws MappingError naming the file and the missing key.
  const std::string& var(const std::string& role) const;
  const std::string& target(const std::string& metric) const;
  const std::string& preset(const std::string& role) const;
  const std::string& variant(const std::string& role) const;
  const std::string& precision_key(const std::string& recipe) const;
  double constant(const std::string& role) const;
  const UnstatedKnob& unstated_knob(const std::string& setting) const;
};

struct MappingError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses the TOML text (`path` is used in messages). Throws MappingError with file:line:col.
MappingTable parse_mapping_table(const std::string& text, const std::string& path);
// <presets_dir>/validate/mapping.toml, read once per directory.
const MappingTable& mapping_table(const std::string& presets_dir);

// The default runs as paths: `data_dir` (Workspace::data_dir) joined with each entry of default_runs.
std::vector<std::string> default_runs_paths(const std::string& presets_dir, const std::string& data_dir);

// Lower case without spaces, dashes, underscores or dots, as the hardware rules compare names.
std::string normalise_hardware_name(const std::string& text);
// The first recompute rule that matches a stated act_recompute cell on the row's hardware, or nothing.
const RecomputeRule* match_recompute(const MappingTable& t, const std::string& cell, const std::string& hardware_text = "");
// For each axis, in the order the axes first appear in the table, the first schedule rule that matches the
// row's framework, ZeRO/FSDP, moe and notes cells (joined, as `text`, before normalising).
std::vector<const ScheduleRule*> match_schedules(const MappingTable& t, const std::string& text);
// The preset of the first rule that matches, or nothing.
std::optional<std::string> match_hardware(const MappingTable& t, const std::string& hardware_text);
// The first rule that matches, or nullptr.
const HardwareRule* match_hardware_rule(const MappingTable& t, const std::string& hardware_text);

}  // namespace gs::validate
