#include "runtime/registry.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace gs {

const char* var_kind_name(VarKind k) {
  switch (k) {
    case VarKind::Constant: return "constant";
    case VarKind::Root: return "root";
    case VarKind::Derived: return "derived";
  }
  return "?";
}

bool defines_value(const Relation& r) {
  switch (r.role) {
    case Role::Identity:
    case Role::Variant:
    case Role::Approximation: return true;
    case Role::Stochastic: return !r.rhs.empty();
    case Role::Constraint:
    case Role::Differential: return false;
  }
  return false;
}

std::string labeled_name(const Variable& v) { return v.symbol.empty() ? v.name : v.name + " (" + v.symbol + ")"; }

Registry::Registry(Image img) : img_(std::move(img)) {
  std::error_code ec;
  cwd_ = std::filesystem::current_path(ec).string();
  const size_t n = img_.vars.size();
  var_names_.reserve(n);
  for (const auto& v : img_.vars) var_names_.push_back(v.name);
  // The maps key on views into the image's own strings, which live as long as the registry.
  for (uint32_t i = 0; i < n; ++i) var_index_.emplace(img_.vars[i].name, i);
  // A symbol is accepted wherever a name is. The compiler keeps symbols unique and distinct from every
  // name; should an image disagree, the name wins (emplace keeps the first entry).
  for (uint32_t i = 0; i < n; ++i)
    if (!img_.vars[i].symbol.empty()) var_index_.emplace(img_.vars[i].symbol, i);
  for (uint32_t i = 0; i < img_.relations.size(); ++i) relation_index_.emplace(img_.relations[i].name, i);
  for (uint32_t i = 0; i < img_.systems.size(); ++i) system_index_.emplace(img_.systems[i].name, i);
  sorted_vars_.resize(n);
  for (uint32_t i = 0; i < n; ++i) sorted_vars_[i] = i;
  std::sort(sorted_vars_.begin(), sorted_vars_.end(), [&](uint32_t a, uint32_t b) { return img_.vars[a].name < img_.vars[b].name; });
  fallback_target_.assign(img_.relations.size(), 0);
  for (const auto& r : img_.relations)
    if (r.fallback >= 0) fallback_target_[size_t(r.fallback)] = 1;
  kinds_.assign(n, VarKind::Root);
  for (uint32_t i = 0; i < n; ++i) {
    if (img_.vars[i].is_constant) {
      kinds_[i] = VarKind::Constant;
      continue;
    }
    for (uint32_t r : defined_by(i))
      if (img_.relations[r].lhs_var == int32_t(i) && defines_value(img_.relations[r])) kinds_[i] = VarKind::Derived;
  }
}

Registry Registry::load(const std::string& path) {
  Image img = load_image_file(path);
  warn_if_stale(img, path);
  return Registry(std::move(img));
}

void Registry::warn_if_stale(const Image& img, const std::string& path) {
  // A warning, not an error: the image still answers, but for the model as it was when compiled.
  const std::vector<std::string> stale = stale_sources(img, path);
  if (stale.empty()) return;
  std::string names;
  for (size_t i = 0; i < stale.size() && i < 3; ++i) names += (i ? ", " : "") + stale[i];
  if (stale.size() > 3) names += " and " + std::to_string(stale.size() - 3) + " more";
  std::fprintf(stderr, "warning: registry image '%s' is older than its model sources (%s changed since it was compiled); "
               "rebuild it (make build, or gstackc compile model -o %s)\n", path.c_str(), names.c_str(), path.c_str());
}

std::vector<Export> Registry::exports(std::string_view role) const {
  std::vector<Export> out;
  for (const auto& e : img_.exports)
    if (e.role == role) out.push_back(e);
  return out;
}

std::optional<uint32_t> Registry::find_var(std::string_view name) const {
  auto it = var_index_.find(name);
  return it == var_index_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
}

std::optional<uint32_t> Registry::find_relation(std::string_view name) const {
  auto it = relation_index_.find(name);
  return it == relation_index_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
}

std::optional<uint32_t> Registry::find_system(std::string_view name) const {
  auto it = system_index_.find(name);
  return it == system_index_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
}

std::vector<uint32_t> Registry::by_system(uint32_t system) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < img_.vars.size(); ++i)
    if (img_.vars[i].system == system) out.push_back(i);
  return out;
}

std::vector<uint32_t> Registry::by_prefix(std::string_view prefix) const {
  auto first = std::lower_bound(sorted_vars_.begin(), sorted_vars_.end(), prefix,
                                [&](uint32_t v, std::string_view p) { return std::string_view(img_.vars[v].name) < p; });
  std::vector<uint32_t> out;
  for (auto it = first; it != sorted_vars_.end() && std::string_view(img_.vars[*it].name).starts_with(prefix); ++it)
    out.push_back(*it);
  return out;
}

std::vector<uint32_t> Registry::by_kind(VarKind kind) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < kinds_.size(); ++i)
    if (kinds_[i] == kind) out.push_back(i);
  return out;
}

std::vector<uint32_t> Registry::leaves() const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < img_.vars.size(); ++i)
    if (img_.used_in.size(i) == 0) out.push_back(i);
  return out;
}

std::span<const uint32_t> Registry::defined_by(uint32_t var) const {
  return {img_.defined_by.begin(var), img_.defined_by.end(var)};
}

std::span<const uint32_t> Registry::used_in(uint32_t var) const { return {img_.used_in.begin(var), img_.used_in.end(var)}; }

std::span<const uint32_t> Registry::relation_deps(uint32_t rel) const {
  return {img_.relation_deps.begin(rel), img_.relation_deps.end(rel)};
}

std::vector<uint32_t> Registry::definitions(uint32_t var) const {
  std::vector<uint32_t> out;
  for (uint32_t r : defined_by(var))
    if (img_.relations[r].lhs_var == int32_t(var)) out.push_back(r);
  return out;
}

std::vector<uint32_t> Registry::constraints_on(uint32_t var) const {
  std::vector<uint32_t> out;
  for (auto list : {defined_by(var), used_in(var)})
    for (uint32_t r : list)
      if (img_.relations[r].role == Role::Constraint) out.push_back(r);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

RegistryStats Registry::stats() const {
  RegistryStats s;
  s.systems = img_.systems.size();
  s.variables = img_.vars.size();
  s.constants = by_kind(VarKind::Constant).size();
  s.relations = img_.relations.size();
  s.root_inputs = by_kind(VarKind::Root).size();
  s.leaves = leaves().size();
  return s;
}

RegistryCoverage Registry::coverage() const {
  RegistryCoverage c;
  for (const auto& v : img_.vars) {
    if (v.is_constant) continue;
    ++c.non_constant_variables;
    c.with_references += !v.refs.empty();
    c.with_description += !v.description.empty();
  }
  c.relations = img_.relations.size();
  for (const auto& r : img_.relations) {
    c.relations_with_references += !r.refs.empty();
    ++c.by_role[static_cast<int>(r.role)];
  }
  // The compiler refuses any relation whose units do not check, so every relation in an image passed.
  c.relations_unit_checked = c.relations;
  return c;
}

std::string Registry::location(const Span& s) const {
  std::string file = s.file < img_.files.size() ? img_.files[s.file] : "?";
  // Paths under the working directory read better, and match what a user typed, when shortened.
  if (!cwd_.empty() && file.size() > cwd_.size() && file.compare(0, cwd_.size(), cwd_) == 0 && file[cwd_.size()] == '/')
    file = file.substr(cwd_.size() + 1);
  return file + ":" + std::to_string(s.line) + ":" + std::to_string(s.column);
}

}  // namespace gs
