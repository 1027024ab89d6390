#include "runtime/uq/memory_fit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <toml++/toml.h>

#include "runtime/format.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "image/text_file.h"
#include "runtime/toml_file.h"
#include "runtime/uq/plan.h"

namespace gs {
namespace {

[[noreturn]] void fail(const std::string& path, const toml::node& n, const std::string& message) {
  const auto& s = n.source();
  throw PresetError(path + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) + ": " + message);
}

std::string text_of(const std::string& path, const toml::table& t, const char* key, const std::string& what) {
  const toml::node* n = t.get(key);
  if (!n) fail(path, t, what + " needs '" + key + "'");
  auto s = n->value<std::string>();
  if (!s) fail(path, *n, what + "." + key + " must be a string");
  return *s;
}

uint32_t variable_of(const Registry& reg, const std::string& path, const toml::table& t, const char* key, const std::string& what) {
  const std::string name = text_of(path, t, key, what);
  try {
    return lookup_variable(reg, name, what + "." + key);
  } catch (const PresetError& e) {
    fail(path, *t.get(key), e.what());
  }
}

// The variable a constraint side is, when the side is one variable.
std::optional<uint32_t> lone_variable(const Expr& e) {
  if (e.nodes.size() == 1 && e.nodes[0].op == Op::Var) return e.nodes[0].index;
  return std::nullopt;
}

}  // namespace

std::optional<MemoryFitCheck> parse_memory_fit_check(const Registry& reg, const std::string& text, const std::string& path,
                                                     bool partial_model) {
  const toml::table doc = parse_toml_text(text, path);
  const toml::table* m = doc.get_as<toml::table>("memory");
  if (!m) throw PresetError(path + ": missing [memory] (the constraint that decides whether a layout fits in HBM)");
  MemoryFitCheck c;
  c.path = path;
  const std::string name = text_of(path, *m, "constraint", "[memory]");
  auto id = reg.find_relation(name);
  if (!id && partial_model) return std::nullopt;
  if (!id || reg.relation(*id).lhs_var >= 0)
    fail(path, *m->get("constraint"), "'" + name + "' is not a constraint of the model (expected one such as REQUIRED <= CAPACITY)");
  const Relation& rel = reg.relation(*id);
  auto lhs = lone_variable(rel.lhs), rhs = lone_variable(rel.rhs);
  if (!lhs || !rhs || (rel.compare != Op::Le && rel.compare != Op::Lt))
    fail(path, *m->get("constraint"), "constraint '" + name + "' must read REQUIRED <= CAPACITY, one variable on each side");
  c.constraint = *id, c.required = *lhs, c.capacity = *rhs;
  if (m->get("column")) c.column = text_of(path, *m, "column", "[memory]");
  if (const toml::node* parts = m->get("parts")) {
    const toml::array* a = parts->as_array();
    if (!a) fail(path, *parts, "[memory].parts must be an array of { name, var } tables");
    for (const auto& n : *a) {
      const toml::table* t = n.as_table();
      if (!t) fail(path, n, "[memory].parts items must be { name = \"...\", var = \"...\" }");
      if (partial_model && !reg.find_var(text_of(path, *t, "var", "a memory part"))) continue;
      c.parts.push_back({text_of(path, *t, "name", "a memory part"), variable_of(reg, path, *t, "var", "a memory part")});
    }
  }
  return c;
}

std::optional<MemoryFitCheck> load_memory_fit_check(const Registry& reg, const std::string& presets_dir) {
  const std::string path = (std::filesystem::path(presets_dir) / "memory_fit.toml").string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::string raw;
  try {
    raw = read_text_file(path, "memory-fit file");  // bounded: a planted /dev/zero does not hang us
  } catch (const TextFileError& e) {
    throw PresetError(e.what());
  }
  return parse_memory_fit_check(reg, raw, path, true);
}

namespace {

MemoryFit fit_of(double required, double capacity) {
  MemoryFit fit;
  fit.required = required, fit.capacity = capacity;
  fit.fits = required <= capacity;
  return fit;
}

// The check by the Plan layer's reference interpreter (doubles, no GiNaC): one cone for both sides and
// every part. Nothing when the doubles cannot stand in for the resolver's exact arithmetic: a cone that
// cannot be compiled or leaves an input missing (a part the scenario cannot price, which the resolver
// leaves out), a value that is not finite (the resolver might fall back or call it unevaluable), or two
// sides within 1e-9 of each other, where rounding could flip the verdict.
std::optional<MemoryFit> interpreted_fit(const Registry& reg, const MemoryFitCheck& check, const std::map<uint32_t, double>& assignments,
                                         const std::map<uint32_t, std::string>& variants) {
  std::vector<uint32_t> targets{check.required, check.capacity};
  for (const auto& p : check.parts) targets.push_back(p.var);
  std::vector<double> values;
  try {
    Plan plan(reg, assignments, variants, targets);
    if (!plan.complete()) return std::nullopt;
    values = plan.evaluate_base();
  } catch (const std::exception&) {
    return std::nullopt;
  }
  for (double v : values)
    if (!std::isfinite(v)) return std::nullopt;
  const double required = values[0], capacity = values[1];
  if (std::fabs(required - capacity) <= 1e-9 * std::max(std::fabs(required), std::fabs(capacity))) return std::nullopt;
  MemoryFit fit = fit_of(required, capacity);
  for (size_t i = 0; i < check.parts.size(); ++i) fit.parts.emplace_back(check.parts[i].name, values[2 + i]);
  return fit;
}

}  // namespace

std::optional<MemoryFit> check_memory_fit(const Registry& reg, const MemoryFitCheck& check, const std::map<uint32_t, double>& assignments,
                                          const std::map<uint32_t, std::string>& variants) {
  if (auto fit = interpreted_fit(reg, check, assignments, variants)) return fit;
  Resolver resolver(reg, assignments, variants);
  const auto required = resolver.resolve(check.required).number, capacity = resolver.resolve(check.capacity).number;
  if (!required || !capacity || !std::isfinite(*required) || !std::isfinite(*capacity)) return std::nullopt;
  MemoryFit fit = fit_of(*required, *capacity);
  for (const auto& p : check.parts)
    if (auto v = resolver.resolve(p.var).number; v && std::isfinite(*v)) fit.parts.emplace_back(p.name, *v);
  return fit;
}

std::string memory_fit_text(const Registry& reg, const MemoryFitCheck& check, const MemoryFit& fit) {
  const Variable& req = reg.var(check.required);
  std::string out = std::string(fit.fits ? "fits in HBM" : "does not fit in HBM") + ": needs " + format_quantity(reg.units(), req, fit.required) +
                    " per GPU, has " + format_quantity(reg.units(), reg.var(check.capacity), fit.capacity) + " (" +
                    reg.relation(check.constraint).name + ")\n";
  for (const auto& [name, bytes] : fit.parts) out += "    " + name + ": " + format_quantity(reg.units(), req, bytes) + "\n";
  return out;
}

}  // namespace gs
