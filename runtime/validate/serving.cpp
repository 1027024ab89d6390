#include "runtime/validate/serving.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "runtime/resolver.h"
#include "runtime/validate/csv.h"
#include "runtime/validate/validate.h"
#include "runtime/toml_file.h"

namespace gs::validate {
namespace {

std::string need_text(const toml::table& t, const char* key, const std::string& path) {
  auto v = t[key].value<std::string>();
  if (!v) {
    const auto& s = t.source();
    throw PresetError(path + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) + ": needs the string '" + key + "'");
  }
  return *v;
}

std::string row_presets_dir(const std::string& path) {
  const toml::table doc = read_toml_file(path);
  return need_text(doc, "row_presets", path);
}

std::string group_by_column(const std::string& path) {
  const toml::table doc = read_toml_file(path);
  return doc.contains("group_by") ? need_text(doc, "group_by", path) : std::string();
}

ServingSummary summarize(const std::string& group, const std::string& column, const std::vector<double>& apes) {
  return {group, column, apes.size(), median(apes), mean(apes)};
}

}  // namespace

std::vector<ServingComparison> load_serving_comparisons(const Registry& reg, const std::string& path) {
  const toml::table doc = read_toml_file(path);
  std::vector<ServingComparison> out;
  const toml::array* list = doc["comparison"].as_array();
  if (!list || list->empty()) throw PresetError(path + ": needs [[comparison]] tables");
  for (const auto& node : *list) {
    const toml::table* t = node.as_table();
    if (!t) throw PresetError(path + ": [[comparison]] must be tables");
    ServingComparison c;
    c.column = need_text(*t, "column", path);
    c.unit = need_text(*t, "unit", path);
    c.var = lookup_variable(reg, need_text(*t, "var", path), "serving comparison " + c.column);
    c.per_system = t->contains("per_system") ? need_text(*t, "per_system", path) : std::string();
    std::string error;
    auto q = reg.units().parse(c.unit, &error);
    if (!q) throw PresetError(path + ": comparison " + c.column + ": bad unit '" + c.unit + "': " + error);
    if (!(q->dim == reg.var(c.var).dim))
      throw PresetError(path + ": comparison " + c.column + ": unit " + c.unit + " does not measure " + reg.var(c.var).name);
    c.unit_scale = q->scale;
    out.push_back(c);
  }
  return out;
}

ServingValidation validate_serving(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir,
                                   const std::string& runs_path) {
  const std::string comparisons_path = (std::filesystem::path(presets_dir) / "validate" / "serving-comparisons.toml").string();
  const auto comparisons = load_serving_comparisons(reg, comparisons_path);
  const std::string row_dir = row_presets_dir(comparisons_path);
  const CsvTable table = read_csv(runs_path);
  auto column = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < table.header.size(); ++i)
      if (table.header[i] == name) return i;
    return std::nullopt;
  };
  const auto id_col = column("id");
  if (!id_col) throw PresetError(runs_path + ":1: the table has no 'id' column");
  ServingValidation v;
  v.runs_path = runs_path;
  v.group_by = group_by_column(comparisons_path);
  if (!v.group_by.empty() && !column(v.group_by))
    throw PresetError(comparisons_path + ": group_by names '" + v.group_by + "', which " + runs_path + " has no column for");
  std::map<std::string, std::vector<double>> apes;
  std::map<std::string, std::map<std::string, std::vector<double>>> group_apes;  // group value -> column -> APEs
  for (const auto& rec : table.records) {
    auto cell = [&](const std::string& name) -> std::string {
      auto c = column(name);
      return c && *c < rec.fields.size() ? rec.fields[*c] : std::string();
    };
    auto number = [&](const std::string& name) -> std::optional<double> {
      const std::string text = cell(name);
      if (text.empty()) return std::nullopt;
      char* end = nullptr;
      const double x = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !std::isfinite(x))
        throw PresetError(runs_path + ":" + std::to_string(rec.line) + ": column " + name + ": '" + text + "' is not a number");
      return x;
    };
    ServingRow row;
    row.id = cell("id");
    row.preset = row_dir + "/" + row.id;
    if (!std::filesystem::exists(std::filesystem::path(presets_dir) / (row.preset + ".toml"))) {
      row.reason = "not modelled: no preset " + row.preset + ".toml";
      v.rows.push_back(row);
      continue;
    }
    const Preset p = lib.load(row.preset);
    Resolver resolver(reg, p.assignments, p.variants);
    for (const auto& c : comparisons) {
      const auto measured = number(c.column);
      if (!measured) continue;
      double factor = 1;
      if (!c.per_system.empty()) {
        const auto f = number(c.per_system);
        if (!f) continue;  // the system's configuration is not stated: the replica count is unknown
        factor = *f;
      }
      const auto value = resolver.resolve(c.var).number;
      if (!value || !std::isfinite(*value))
        throw PresetError("preset " + row.preset + " does not determine " + reg.var(c.var).name + " (for column " + c.column + ")");
      ServingMetric m{c.column, *measured, *value / c.unit_scale * factor, 0};
      m.ape = ape(m.predicted, m.measured);
      apes[c.column].push_back(m.ape);
      if (!v.group_by.empty()) group_apes[cell(v.group_by)][c.column].push_back(m.ape);
      row.metrics.push_back(m);
    }
    if (row.metrics.empty()) row.reason = "modelled, but none of its measured columns can be compared";
    v.rows.push_back(row);
  }
  for (const auto& c : comparisons)
    if (auto it = apes.find(c.column); it != apes.end())
      v.summary.push_back(summarize("", c.column, it->second));
  for (const auto& [group, by_column] : group_apes)
    for (const auto& c : comparisons)
      if (auto it = by_column.find(c.column); it != by_column.end()) v.by_group.push_back(summarize(group, c.column, it->second));
  return v;
}


std::string serving_report_json(const ServingValidation& v) {
  nlohmann::ordered_json j;
  j["runs"] = v.runs_path;
  j["sample"] = v.sample;
  j["note"] = "no serving row was used to fit any parameter; the serving model's efficiencies are fitted on training rows only";
  auto rows = nlohmann::ordered_json::array();
  for (const auto& r : v.rows) {
    nlohmann::ordered_json row = {{"id", r.id}, {"preset", r.preset}};
    if (!r.reason.empty()) row["not_modelled"] = r.reason;
    auto metrics = nlohmann::ordered_json::array();
    for (const auto& m : r.metrics)
      metrics.push_back({{"column", m.column}, {"measured", m.measured}, {"predicted", m.predicted}, {"ape_percent", m.ape}, {"sample", v.sample}});
    row["metrics"] = metrics;
    rows.push_back(row);
  }
  j["rows"] = rows;
  auto summary = nlohmann::ordered_json::object();
  for (const auto& s : v.summary) summary[s.column] = {{"n", s.n}, {"median_ape_percent", s.median_ape}, {"mean_ape_percent", s.mean_ape}};
  j["summary"] = summary;
  if (!v.group_by.empty()) {
    auto groups = nlohmann::ordered_json::object();
    for (const auto& s : v.by_group)
      groups[s.group][s.column] = {{"n", s.n}, {"median_ape_percent", s.median_ape}, {"mean_ape_percent", s.mean_ape}};
    j["summary_by"] = {{"column", v.group_by}, {"groups", groups}};
  }
  return j.dump(2) + "\n";
}

}  // namespace gs::validate
