#include "runtime/analysis/catalog.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "image/suggest.h"
#include "runtime/analysis/scenario.h"

namespace gs {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string hinted(const std::string& message, const std::string& hint) { return hint.empty() ? message : message + "\n  hint: " + hint; }

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(lower(text));
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool matches_text(const Variable& v, const std::vector<std::string>& ws) {
  const std::string hay = lower(v.name + "\n" + v.symbol + "\n" + v.description + "\n" + v.doc);
  return std::all_of(ws.begin(), ws.end(), [&](const std::string& w) { return hay.find(w) != std::string::npos; });
}

}  // namespace

std::vector<uint32_t> find_variables(const Registry& reg, const VariableQuery& q) {
  std::optional<uint32_t> system;
  if (!q.system.empty()) {
    system = reg.find_system(q.system);
    if (!system) {
      std::vector<std::string> names;
      for (const auto& s : reg.image().systems) names.push_back(s.name);
      throw PresetError(hinted("unknown system '" + q.system + "'", did_you_mean(q.system, names)));
    }
  }
  std::optional<VarKind> kind;
  if (!q.kind.empty()) {
    for (VarKind k : {VarKind::Constant, VarKind::Root, VarKind::Derived})
      if (q.kind == var_kind_name(k)) kind = k;
    if (!kind) throw PresetError("unknown kind '" + q.kind + "': expected root, derived or constant");
  }
  std::optional<Dim> dim;
  if (!q.unit.empty()) {
    std::string error;
    auto unit = reg.units().parse(q.unit, &error);
    if (!unit) throw PresetError("bad --unit '" + q.unit + "': " + error);
    dim = unit->dim;
  }
  const std::vector<std::string> ws = words(q.text);
  std::vector<uint32_t> out;
  for (uint32_t v : q.prefix.empty() ? reg.by_prefix("") : reg.by_prefix(q.prefix)) {
    const Variable& var = reg.var(v);
    if (system && var.system != *system) continue;
    if (kind && reg.kind(v) != *kind) continue;
    if (dim && !(var.dim == *dim)) continue;
    if (!ws.empty() && !matches_text(var, ws)) continue;
    out.push_back(v);
  }
  return out;
}

std::string variables_text(const Registry& reg, const std::vector<uint32_t>& vars) {
  size_t name_w = 4, unit_w = 4;
  for (uint32_t v : vars) name_w = std::max(name_w, labeled_name(reg.var(v)).size()), unit_w = std::max(unit_w, reg.var(v).unit.size());
  std::string out;
  for (uint32_t v : vars) {
    const Variable& var = reg.var(v);
    out += fmt::format("{:<{}}  {:<8}  {:<{}}  {}\n", labeled_name(var), name_w, var_kind_name(reg.kind(v)), var.unit, unit_w, var.description);
  }
  out += fmt::format("{} variable{}\n", vars.size(), vars.size() == 1 ? "" : "s");
  return out;
}

std::string variables_json(const Registry& reg, const VariableQuery& q, const std::vector<uint32_t>& vars) {
  json j{{"filters", {{"system", q.system}, {"prefix", q.prefix}, {"kind", q.kind}, {"unit", q.unit}, {"text", q.text}}},
         {"count", vars.size()},
         {"variables", json::array()}};
  for (uint32_t v : vars) {
    const Variable& var = reg.var(v);
    j["variables"].push_back({{"name", var.name},
                              {"symbol", var.symbol},
                              {"system", reg.image().systems[var.system].name},
                              {"kind", var_kind_name(reg.kind(v))},
                              {"unit", var.unit},
                              {"description", var.description},
                              {"location", reg.location(var.span)}});
  }
  return j.dump(2) + "\n";
}

std::vector<PresetEntry> preset_catalog(const PresetLibrary& lib, const std::string& presets_dir, const std::string& sub) {
  std::string dir = presets_dir;
  if (!sub.empty()) {
    const fs::path rel = fs::path(sub).lexically_normal();
    if (rel.is_absolute() || rel.empty() || *rel.begin() == "..")
      throw PresetError("--dir '" + sub + "': expected a folder inside the presets directory (" + presets_dir + ")");
    dir = (fs::path(presets_dir) / rel).string();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      std::vector<std::string> names;
      for (const auto& e : fs::directory_iterator(presets_dir, ec))
        if (e.is_directory()) names.push_back(e.path().filename().string());
      throw PresetError(hinted("no folder '" + sub + "' in the presets directory " + presets_dir, did_you_mean(sub, names)));
    }
  }
  const std::string prefix = sub.empty() ? "" : fs::path(sub).lexically_normal().generic_string() + "/";
  std::vector<PresetEntry> out;
  for (const auto& f : preset_files(dir)) {
    if (!f.skipped.empty()) continue;
    PresetEntry e;
    e.name = prefix + f.name, e.path = f.path;
    try {
      Preset p = lib.load(f.path);
      e.description = p.description, e.source = p.source;
      e.assignments = p.assignments.size(), e.variants = p.variants.size(), e.uncertain = p.uncertain.size();
    } catch (const std::exception& ex) {
      e.error = ex.what();
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string presets_text(const std::vector<PresetEntry>& presets) {
  std::string out;
  for (const auto& p : presets) {
    out += p.name + "\n";
    if (!p.error.empty()) {
      out += "  error       : " + p.error + "\n";
      continue;
    }
    out += "  description : " + (p.description.empty() ? std::string("(none given)") : p.description) + "\n";
    out += fmt::format("  assignments : {}, variants: {}, uncertain: {}\n", p.assignments, p.variants, p.uncertain);
    out += "  source      : " + (p.source.empty() ? std::string("(none given)") : p.source) + "\n";
  }
  if (presets.empty()) out += "(no presets)\n";
  else out += fmt::format("{} preset{}\n", presets.size(), presets.size() == 1 ? "" : "s");
  return out;
}

std::string presets_json(const std::vector<PresetEntry>& presets) {
  json j = json::array();
  for (const auto& p : presets) {
    json e{{"name", p.name}, {"path", p.path}, {"description", p.description}, {"source", p.source},
           {"assignments", p.assignments}, {"variants", p.variants}, {"uncertain", p.uncertain}};
    e["error"] = p.error.empty() ? json(nullptr) : json(p.error);
    j.push_back(e);
  }
  return j.dump(2) + "\n";
}

}  // namespace gs
