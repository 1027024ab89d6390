#include "runtime/headline.h"

#include <algorithm>
#include <filesystem>
#include <toml++/toml.h>
#include <vector>

#include "image/text_file.h"
#include "runtime/presets.h"

namespace gs {

std::vector<std::string> load_headline_targets(const std::string& presets_dir) {
  const std::string path = (std::filesystem::path(presets_dir) / "headlines.toml").string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::vector<std::string> out;
  try {
    const toml::table doc = toml::parse(read_text_file(path, "headlines file"), path);
    const toml::node* t = doc.get("targets");
    if (!t || !t->is_array()) throw PresetError(path + ": missing 'targets', the list of headline variables");
    for (const auto& n : *t->as_array()) {
      auto name = n.value<std::string>();
      if (!name) {
        const auto& s = n.source();
        throw PresetError(path + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) + ": a headline target must be a variable name");
      }
      out.push_back(*name);
    }
  } catch (const toml::parse_error& e) {
    throw PresetError(path + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                      ": malformed TOML: " + std::string(e.description()));
  } catch (const TextFileError& e) {
    throw PresetError(e.what());
  }
  return out;
}

HeadlineCoverage headline_coverage(const Registry& reg, const Graph& graph, const std::vector<std::string>& targets) {
  HeadlineCoverage c;
  std::vector<uint8_t> in_cone(reg.var_count(), 0);
  for (const auto& name : targets) {
    auto id = reg.find_var(name);
    if (!id) continue;
    ++c.targets_found;
    for (uint32_t v : graph.dependency_cone(*id)) in_cone[v] = 1;
  }
  c.relations = reg.relation_count();
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const Relation& rel = reg.relation(r);
    bool inside;
    if (rel.role == Role::Constraint) {
      auto vars = reg.relation_deps(r);
      inside = !vars.empty() && std::all_of(vars.begin(), vars.end(), [&](uint32_t v) { return in_cone[v] != 0; });
    } else {
      inside = rel.lhs_var >= 0 && in_cone[size_t(rel.lhs_var)];
    }
    c.relations_in_cones += inside;
  }
  return c;
}

}  // namespace gs
