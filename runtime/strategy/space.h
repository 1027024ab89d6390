// The execution-strategy search space, read from a TOML data file (presets/strategy/knobs.toml): the
// knobs a search varies and the model variable each one sets, how their candidate values are generated,
// the divisibility rules that reject a layout before any evaluation, the model constraints that reject
// it after, the objectives and the columns each candidate reports. No model name is spelled in C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/registry.h"

namespace gs::strategy {

// One factor of a product: a number, or a reference to a problem quantity or knob by name.
struct Factor {
  double number = 1;
  std::string name;  // empty for a number
};
using Product = std::vector<Factor>;

struct ProblemQuantity {
  std::string name;
  uint32_t var = 0;
  bool has_fallback = false;
  double fallback = 0;  // used when the scenario does not determine the variable
};

enum class Generator { PowersOfTwo, Range, Divisors, List };

struct Knob {
  std::string name, description;
  uint32_t var = 0;
  Generator generator = Generator::List;
  Product bound;  // max for powers_of_two and range, the number to divide for divisors
  std::vector<double> list;
  std::vector<std::string> labels;  // names of list values (same length as list), or empty
  // Variant selectors the search sets while this knob varies, so that its number reaches the model as an
  // input of one cone (recomputation as a mode; interleaving through the interleaved schedule).
  std::map<uint32_t, std::string> variants;
};

struct DerivedKnob {
  std::string name, description, rule;
  uint32_t var = 0;
  Product numerator, denominator;
};

enum class RuleKind { Divides, AtMost };

struct Rule {
  std::string name, description;
  RuleKind kind = RuleKind::Divides;
  Product a, b;                          // divides: a | b (divisor, dividend); at_most: a <= b
  std::vector<double> dividend_offsets;  // divides: b + offset for some offset (default {0})
  bool or_reverse = false;               // divides: b | a also passes
  std::map<std::string, double> only_if_above;
};

struct Objective {
  std::string name;
  uint32_t var = 0;
  bool maximize = true;
};

// A limit a caller may state (a latency target): its value is assigned to `var` and `constraint` joins the
// model constraints checked. A limit the caller does not state is not checked.
struct Limit {
  std::string name;
  uint32_t var = 0;
  uint32_t constraint = 0;  // relation id
};

struct ReportColumn {
  std::string name, group;
  uint32_t var = 0;
};

struct StrategySpace {
  std::string path;
  std::vector<ProblemQuantity> problem;
  std::vector<Knob> knobs;
  std::vector<DerivedKnob> derived;
  std::vector<Rule> rules;
  std::map<uint32_t, std::string> variants;  // selectors the search sets, whatever it varies
  std::vector<uint32_t> constraints;         // relation ids of model constraints, in order
  std::vector<Limit> limits;
  std::vector<Objective> objectives;
  std::string default_objective;  // empty: the first objective in the file
  std::vector<ReportColumn> report;

  const Objective* objective(const std::string& name) const;
  const Limit* limit(const std::string& name) const;
};

// Throws PresetError with file:line and a hint on a malformed file or an unknown model name.
StrategySpace load_strategy_space(const Registry& reg, const std::string& path);
StrategySpace parse_strategy_space(const Registry& reg, const std::string& text, const std::string& path);

// The space searched when only some knobs are free (validate's unstated settings): the knobs named in
// `free` keep only the given candidate values; every other knob stops setting its variants and, when a
// derived knob or a kept rule reads it, becomes a problem quantity read from the scenario (its first
// candidate, the neutral setting, when the scenario leaves it open); rules that name no free knob,
// directly or through a derived knob, are dropped, because what the scenario states about them is a
// fact, not a choice. Throws PresetError when a name in `free` is not a knob of the space.
StrategySpace narrow_space(const StrategySpace& space, const std::map<std::string, std::vector<double>>& free);

// presets/strategy/knobs.toml (training) or presets/strategy/serving-knobs.toml (serving) under a
// presets directory.
std::string default_space_path(const std::string& presets_dir);
std::string serving_space_path(const std::string& presets_dir);

}  // namespace gs::strategy
