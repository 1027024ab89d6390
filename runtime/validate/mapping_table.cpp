#include "runtime/validate/mapping_table.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <toml++/toml.h>

#include "runtime/validate/runs.h"
#include "image/text_file.h"
#include "runtime/toml_file.h"

namespace gs::validate {
namespace {

std::string where(const std::string& path, const toml::source_region& r) {
  return path + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

[[noreturn]] void fail(const std::string& path, const toml::node& n, const std::string& msg) {
  throw MappingError(where(path, n.source()) + ": " + msg);
}

std::string text_of(const std::string& path, const toml::node& n, const std::string& what) {
  if (auto s = n.value<std::string>()) return *s;
  fail(path, n, what + " must be a string");
}

double number_of(const std::string& path, const toml::node& n, const std::string& what) {
  if (auto d = n.value<double>()) return *d;
  fail(path, n, what + " must be a number");
}

std::vector<std::string> texts_of(const std::string& path, const toml::node* n, const std::string& what) {
  std::vector<std::string> out;
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a) fail(path, *n, what + " must be an array of strings");
  for (const auto& x : *a) out.push_back(text_of(path, x, what));
  return out;
}

const toml::table& table_of(const std::string& path, const toml::table& doc, const std::string& key) {
  const toml::node* n = doc.get(key);
  if (!n) throw MappingError(path + ": missing table [" + key + "]");
  if (!n->is_table()) fail(path, *n, "'" + key + "' must be a table");
  return *n->as_table();
}

std::map<std::string, std::string> strings_of(const std::string& path, const toml::table& doc, const std::string& key) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : table_of(path, doc, key)) out[std::string(k.str())] = text_of(path, v, "[" + key + "] " + std::string(k.str()));
  return out;
}

// Calls read(node, table) for each table of the optional array of tables `key` ([[key]] in the file).
template <class Read>
void each_rule(const std::string& path, const toml::table& doc, const std::string& key, Read read) {
  const toml::node* rules = doc.get(key);
  if (!rules) return;
  if (!rules->is_array_of_tables()) fail(path, *rules, "'" + key + "' must be an array of tables ([[" + key + "]])");
  for (const auto& n : *rules->as_array()) read(n, *n.as_table());
}

// A rule's list of strings to match against a row's cells, normalised as hardware names are (case, spaces
// and punctuation ignored), so a rule and a cell compare the same way whatever the rule matches.
std::vector<std::string> match_texts_of(const std::string& path, const toml::table& rule, const std::string& key) {
  std::vector<std::string> out = texts_of(path, rule.get(key), key);
  for (auto& s : out) s = normalise_hardware_name(s);
  return out;
}

template <class Map>
const typename Map::mapped_type& lookup(const Map& m, const std::string& key, const std::string& path, const std::string& table) {
  auto it = m.find(key);
  if (it == m.end()) throw MappingError(path + ": [" + table + "] has no entry '" + key + "'");
  return it->second;
}

void reject_unknown(const std::string& path, const toml::table& t, const std::vector<std::string>& keys, const std::string& what) {
  for (const auto& [k, v] : t)
    if (std::find(keys.begin(), keys.end(), std::string(k.str())) == keys.end()) {
      std::string list;
      for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
      throw MappingError(where(path, k.source()) + ": unknown key '" + std::string(k.str()) + "' in a " + what + " entry (" + list + ")");
    }
}

}  // namespace

const std::string& MappingTable::var(const std::string& role) const { return lookup(variables, role, path, "variables"); }
const std::string& MappingTable::target(const std::string& metric) const { return lookup(targets, metric, path, "targets"); }
const std::string& MappingTable::preset(const std::string& role) const { return lookup(presets, role, path, "presets"); }
const std::string& MappingTable::variant(const std::string& role) const { return lookup(variants, role, path, "variants"); }
const std::string& MappingTable::precision_key(const std::string& recipe) const { return lookup(precision, recipe, path, "precision"); }
double MappingTable::constant(const std::string& role) const { return lookup(constants, role, path, "constants"); }
const MappingTable::UnstatedKnob& MappingTable::unstated_knob(const std::string& setting) const {
  return lookup(unstated, setting, path, "unstated");
}

MappingTable parse_mapping_table(const std::string& text, const std::string& path) {
  const toml::table doc = parse_toml_text_as<MappingError>(text, path);
  static const std::vector<std::string> kKeys = {"schema", "default_runs", "presets", "variables", "constants", "variants", "precision",
                                                 "targets",      "breakdown", "hardware", "recompute", "schedule", "unstated", "fit", "model_facts"};
  for (const auto& [key, node] : doc)
    if (std::find(kKeys.begin(), kKeys.end(), key.str()) == kKeys.end())
      throw MappingError(where(path, key.source()) + ": unknown key '" + std::string(key.str()) + "' (expected one of schema, default_runs, presets, variables, constants, variants, precision, targets, breakdown, hardware, recompute, schedule, unstated, fit, model_facts)");
  MappingTable t;
  t.path = path;
  t.default_runs = texts_of(path, doc.get("default_runs"), "default_runs");
  t.presets = strings_of(path, doc, "presets");
  t.variables = strings_of(path, doc, "variables");
  t.variants = strings_of(path, doc, "variants");
  t.precision = strings_of(path, doc, "precision");
  t.targets = strings_of(path, doc, "targets");
  for (const auto& [k, v] : table_of(path, doc, "constants")) t.constants[std::string(k.str())] = number_of(path, v, "[constants] " + std::string(k.str()));
  for (const auto& [k, v] : table_of(path, doc, "breakdown")) t.breakdown.push_back(text_of(path, v, "[breakdown] " + std::string(k.str())));
  for (const auto& [k, v] : table_of(path, doc, "unstated")) {
    const std::string key(k.str());
    if (key == "near_best_pct") {
      t.near_best_pct = number_of(path, v, "[unstated] near_best_pct");
      continue;
    }
    const toml::table* e = v.as_table();
    if (!e) fail(path, v, "[unstated] " + key + " must be a table { knob = \"NAME\", values = [...] }");
    reject_unknown(path, *e, {"knob", "values"}, "[unstated] " + key);
    const toml::node* knob = e->get("knob");
    const toml::array* a = e->get("values") ? e->get("values")->as_array() : nullptr;
    if (!knob) fail(path, v, "[unstated] " + key + " needs 'knob', the strategy-search knob that chooses it");
    if (!a || a->empty()) fail(path, v, "[unstated] " + key + ".values must be a non-empty array of numbers");
    t.unstated[key].knob = text_of(path, *knob, "[unstated] " + key + ".knob");
    for (const auto& x : *a) t.unstated[key].values.push_back(number_of(path, x, "[unstated] " + key + ".values"));
  }
  const toml::node* hw = doc.get("hardware");
  if (!hw || !hw->is_array_of_tables()) throw MappingError(path + ": missing [[hardware]] rules");
  each_rule(path, doc, "hardware", [&](const toml::node& n, const toml::table& r) {
    HardwareRule rule;
    const toml::node* p = r.get("preset");
    if (!p) fail(path, n, "a [[hardware]] rule needs a preset");
    rule.preset = text_of(path, *p, "preset");
    rule.all = match_texts_of(path, r, "all");
    rule.none = match_texts_of(path, r, "none");
    if (const toml::node* m = r.get("moe")) rule.moe = text_of(path, *m, "moe");
    reject_unknown(path, r, {"preset", "all", "none", "moe"}, "[[hardware]]");
    if (rule.all.empty()) fail(path, n, "a [[hardware]] rule needs at least one string in 'all'");
    t.hardware.push_back(std::move(rule));
  });
  each_rule(path, doc, "recompute", [&](const toml::node& n, const toml::table& r) {
    RecomputeRule rule;
    reject_unknown(path, r, {"all", "hardware", "fraction", "fraction_variant", "attention", "memory", "why"}, "[[recompute]]");
    rule.all = match_texts_of(path, r, "all");
    rule.hardware = match_texts_of(path, r, "hardware");
    const toml::node* f = r.get("fraction");
    const toml::node* fv = r.get("fraction_variant");
    const toml::node* m = r.get("memory");
    const toml::node* w = r.get("why");
    if (rule.all.empty() || (!f == !fv) || !m || !w)
      fail(path, n, "a [[recompute]] rule needs 'all', one of 'fraction' or 'fraction_variant', 'memory' and 'why'");
    if (f) {
      rule.fraction = number_of(path, *f, "fraction");
      if (!(rule.fraction >= 0 && rule.fraction <= 1)) fail(path, *f, "a recompute fraction must lie in [0, 1]");
    } else {
      rule.fraction_variant = text_of(path, *fv, "fraction_variant");
    }
    if (const toml::node* a = r.get("attention")) {
      rule.attention = number_of(path, *a, "attention");
      if (!(*rule.attention >= 0 && *rule.attention <= 1)) fail(path, *a, "an attention recompute fraction must lie in [0, 1]");
    }
    rule.memory = text_of(path, *m, "memory");
    if (rule.memory != "recompute_none" && rule.memory != "recompute_selective" && rule.memory != "recompute_full")
      fail(path, *m, "memory must be recompute_none, recompute_selective or recompute_full");
    rule.why = text_of(path, *w, "why");
    t.recompute.push_back(std::move(rule));
  });
  each_rule(path, doc, "schedule", [&](const toml::node& n, const toml::table& r) {
    ScheduleRule rule;
    reject_unknown(path, r, {"axis", "all", "none", "preset", "why"}, "[[schedule]]");
    const toml::node* a = r.get("axis");
    const toml::node* p = r.get("preset");
    const toml::node* w = r.get("why");
    if (!a || !p || !w) fail(path, n, "a [[schedule]] rule needs 'axis', 'preset' and 'why'");
    rule.axis = text_of(path, *a, "axis");
    rule.preset = text_of(path, *p, "preset");
    rule.why = text_of(path, *w, "why");
    rule.all = match_texts_of(path, r, "all");
    rule.none = match_texts_of(path, r, "none");
    t.schedule.push_back(std::move(rule));
  });
  each_rule(path, doc, "fit", [&](const toml::node& n, const toml::table& r) {
    FitParameterSpec f;
    reject_unknown(path, r, {"name", "share", "start", "why"}, "[[fit]]");
    const toml::node* name = r.get("name");
    if (!name) fail(path, n, "a [[fit]] entry needs a name");
    f.name = text_of(path, *name, "name");
    if (const toml::node* sh = r.get("share")) {
      auto b = sh->value<bool>();
      if (!b) fail(path, *sh, "share must be true or false");
      f.share = *b;
    }
    if (const toml::node* st = r.get("start")) f.start = number_of(path, *st, "start");
    else fail(path, n, "a [[fit]] entry needs a start");
    if (const toml::node* w = r.get("why")) f.why = text_of(path, *w, "why");
    if (f.share ? !(f.start > 0 && f.start < 1) : !(f.start > 0)) fail(path, n, "the start of " + f.name + " must be " + (f.share ? "in (0, 1)" : "positive"));
    t.fit.push_back(std::move(f));
  });
  each_rule(path, doc, "model_facts", [&](const toml::node& n, const toml::table& r) {
    ModelFact f;
    reject_unknown(path, r, {"family", "model", "framework", "notes", "cells", "source"}, "[[model_facts]]");
    f.family = match_texts_of(path, r, "family");
    f.model = match_texts_of(path, r, "model");
    f.framework = match_texts_of(path, r, "framework");
    f.notes = match_texts_of(path, r, "notes");
    const toml::node* cells = r.get("cells");
    if ((f.family.empty() && f.notes.empty() && f.framework.empty()) || !cells || !cells->is_table())
      fail(path, n, "a [[model_facts]] entry needs 'family', 'framework' or 'notes', and a 'cells' table");
    for (const auto& [k, v] : *cells->as_table()) {
      const std::string value = text_of(path, v, "cells." + std::string(k.str()));
      const bool ref = value.size() > 2 && value.front() == '{' && value.back() == '}';
      if (value.find_first_of("{}") != std::string::npos && (!ref || value.find_first_of("{}", 1) != value.size() - 1))
        fail(path, v, "cells." + std::string(k.str()) + " = '" + value + "': a reference to another column is written {column}");
      f.cells[std::string(k.str())] = value;
    }
    const toml::node* src = r.get("source");
    if (!src) fail(path, n, "a [[model_facts]] entry needs a source");
    f.source = text_of(path, *src, "source");
    t.model_facts.push_back(std::move(f));
  });
  return t;
}

const MappingTable& mapping_table(const std::string& presets_dir) {
  static std::mutex mu;
  static std::map<std::string, MappingTable> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(presets_dir);
  if (it != cache.end()) return it->second;
  const std::string path = (std::filesystem::path(presets_dir) / "validate" / "mapping.toml").string();
  std::string text;
  try {
    text = read_text_file(path, "validate mapping");
  } catch (const TextFileError& e) {
    throw MappingError(e.what());
  }
  return cache.emplace(presets_dir, parse_mapping_table(text, path)).first->second;
}

std::vector<std::string> default_runs_paths(const std::string& presets_dir, const std::string& data_dir) {
  std::vector<std::string> out;
  for (const auto& r : mapping_table(presets_dir).default_runs) out.push_back((std::filesystem::path(data_dir) / r).string());
  return out;
}

std::string normalise_hardware_name(const std::string& text) {
  std::string out;
  for (char c : lower(text))
    if (c != ' ' && c != '-' && c != '_' && c != '.') out += c;
  return out;
}

const RecomputeRule* match_recompute(const MappingTable& t, const std::string& cell, const std::string& hardware_text) {
  const std::string s = normalise_hardware_name(cell);
  if (s.empty()) return nullptr;
  const std::string hw = normalise_hardware_name(hardware_text);
  auto has = [&](const std::string& x) { return s.find(x) != std::string::npos; };
  auto on_hw = [&](const std::string& x) { return hw.find(x) != std::string::npos; };
  for (const auto& r : t.recompute)
    if (std::all_of(r.all.begin(), r.all.end(), has) && (r.hardware.empty() || std::any_of(r.hardware.begin(), r.hardware.end(), on_hw)))
      return &r;
  return nullptr;
}

std::vector<const ScheduleRule*> match_schedules(const MappingTable& t, const std::string& text) {
  const std::string s = normalise_hardware_name(text);
  auto has = [&](const std::string& x) { return s.find(x) != std::string::npos; };
  std::vector<const ScheduleRule*> out;
  std::vector<std::string> decided;
  for (const auto& r : t.schedule) {
    if (std::find(decided.begin(), decided.end(), r.axis) != decided.end()) continue;
    if (std::all_of(r.all.begin(), r.all.end(), has) && std::none_of(r.none.begin(), r.none.end(), has)) {
      out.push_back(&r);
      decided.push_back(r.axis);
    }
  }
  return out;
}

const HardwareRule* match_hardware_rule(const MappingTable& t, const std::string& hardware_text) {
  const std::string s = normalise_hardware_name(hardware_text);
  if (s.empty()) return nullptr;
  auto has = [&](const std::string& x) { return s.find(x) != std::string::npos; };
  for (const auto& r : t.hardware)
    if (std::all_of(r.all.begin(), r.all.end(), has) && std::none_of(r.none.begin(), r.none.end(), has)) return &r;
  return nullptr;
}

std::optional<std::string> match_hardware(const MappingTable& t, const std::string& hardware_text) {
  if (const HardwareRule* r = match_hardware_rule(t, hardware_text)) return r->preset;
  return std::nullopt;
}

}  // namespace gs::validate
