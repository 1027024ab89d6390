#include "runtime/analysis/scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <toml++/toml.h>

#include "runtime/preset_overlay.h"

namespace gs {

namespace fs = std::filesystem;

namespace {

// The file an `extends` entry names, looked up the way the preset loader does: next to the extending
// file, then in the presets directory. Empty when it cannot be found (the loader has already reported
// that, so attribution simply stops there).
std::string locate_layer(const std::string& entry, const std::string& from_dir, const std::string& presets_dir) {
  const std::string file = entry.ends_with(".toml") ? entry : entry + ".toml";
  std::error_code ec;  // a name too long for the file system is "not found", not a throw
  if ((entry.find('/') != std::string::npos || entry.ends_with(".toml")) && fs::exists(entry, ec)) return entry;
  for (const std::string& dir : {from_dir, presets_dir}) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / file;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

std::vector<std::string> extends_of(const std::string& path) {
  std::vector<std::string> out;
  try {
    toml::table doc = toml::parse_file(path);
    if (const toml::node* n = doc.get("extends")) {
      if (auto s = n->value<std::string>()) out.push_back(*s);
      else if (const toml::array* a = n->as_array())
        for (const auto& item : *a)
          if (auto t = item.value<std::string>()) out.push_back(*t);
    }
  } catch (const toml::parse_error&) {
    // The loader reports malformed files; without `extends` the file is its own only layer.
  }
  return out;
}

struct Layered {
  std::map<uint32_t, double> assignments;
  std::map<uint32_t, Origin> origins;
};

Layered attribute(const PresetLibrary& lib, const std::string& presets_dir, const std::string& path, int depth) {
  Layered out;
  // The loader rejects cycles of `extends`; the depth limit only keeps this walk finite regardless.
  if (depth > 32) return out;
  const Preset full = lib.load(path);
  Layered base;
  for (const std::string& e : extends_of(path)) {
    std::string p = locate_layer(e, fs::path(path).parent_path().string(), presets_dir);
    if (p.empty()) continue;
    Layered b = attribute(lib, presets_dir, p, depth + 1);
    for (const auto& [v, x] : b.assignments) base.assignments[v] = x, base.origins[v] = b.origins[v];
  }
  const Origin self{full.name, path, !full.source.empty()};
  for (const auto& [v, x] : full.assignments) {
    auto it = base.assignments.find(v);
    out.assignments[v] = x;
    out.origins[v] = it != base.assignments.end() && it->second == x ? base.origins[v] : self;
  }
  return out;
}

}  // namespace

std::map<uint32_t, Origin> assignment_origins(const PresetLibrary& lib, const std::string& presets_dir, const std::string& path) {
  return attribute(lib, presets_dir, path, 0).origins;
}

AnalysisScenario load_scenario(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir,
                               const std::vector<std::string>& presets, const std::vector<std::string>& assigns,
                               const std::vector<std::string>& variants) {
  AnalysisScenario s;
  for (const auto& name : presets) {
    Preset p = lib.load(name);
    overlay_preset(s, p);
    for (const auto& [v, o] : assignment_origins(lib, presets_dir, p.path)) s.origins[v] = o;
    s.label += (s.label.empty() ? "" : " + ") + p.name;
    s.presets.push_back(std::move(p));
  }
  for (const auto& a : assigns) {
    auto [v, x] = parse_assignment(reg, a);
    s.assignments[v] = x;
    s.origins[v] = Origin{"command line", "", false};
  }
  for (const auto& text : variants) {
    auto [v, k] = parse_selector(reg, text);
    s.variants[v] = k;
  }
  if (s.label.empty()) s.label = assigns.empty() && variants.empty() ? "(no preset)" : "(command line)";
  else if (!assigns.empty() || !variants.empty()) s.label += " + command line";
  return s;
}

std::vector<PresetFile> preset_files(const std::string& dir) {
  std::vector<PresetFile> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".toml") continue;
    PresetFile f;
    f.path = it->path().string();
    fs::path rel = fs::relative(it->path(), dir, ec);
    f.name = (rel.empty() ? it->path().filename() : rel).replace_extension().generic_string();
    try {
      toml::table doc = toml::parse_file(f.path);
      if (const toml::node* schema = doc.get("schema"))
        f.skipped = "not a preset (schema '" + schema->value_or(std::string("?")) + "')";
    } catch (const toml::parse_error&) {
      // Left for the preset loader, which reports the line.
    }
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const PresetFile& a, const PresetFile& b) { return a.name < b.name; });
  return out;
}

std::string default_preset_name(const std::string& presets_dir) {
  return fs::exists(fs::path(presets_dir) / "default.toml") ? "default" : "dense_training_cost_fixture";
}

double distribution_variance(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::Uniform: return (d.b - d.a) * (d.b - d.a) / 12;
    case Distribution::Kind::Normal: return d.b * d.b;
    case Distribution::Kind::Lognormal: {
      // a = median = e^mu, b = sigma: Var = (e^(sigma^2) - 1) e^(2 mu + sigma^2).
      const double s2 = d.b * d.b;
      return std::expm1(s2) * d.a * d.a * std::exp(s2);
    }
    case Distribution::Kind::Triangular:
      return (d.a * d.a + d.b * d.b + d.c * d.c - d.a * d.b - d.a * d.c - d.b * d.c) / 18;
  }
  return NAN;
}

}  // namespace gs
