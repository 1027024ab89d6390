#include "runtime/export.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "runtime/graph.h"

namespace gs {

namespace {

struct Cone {
  std::vector<uint32_t> nodes;                        // sorted by name
  std::vector<std::pair<uint32_t, uint32_t>> edges;   // dependency -> dependent, sorted by names
};

Cone collect(const Registry& reg, const Graph& g, const ConeExport& spec) {
  Cone c;
  std::vector<uint8_t> in(reg.var_count(), 0);
  std::vector<uint32_t> roots{spec.root};
  roots.insert(roots.end(), spec.more_roots.begin(), spec.more_roots.end());
  for (uint32_t root : roots)
    for (uint32_t v : spec.dependents ? g.dependent_cone(root) : g.dependency_cone(root))
      if (!in[v]) in[v] = 1, c.nodes.push_back(v);
  for (uint32_t v : c.nodes)
    for (uint32_t d : g.deps(v))
      if (in[d]) c.edges.emplace_back(d, v);
  auto by_name = [&](uint32_t a, uint32_t b) { return reg.var(a).name < reg.var(b).name; };
  std::sort(c.nodes.begin(), c.nodes.end(), by_name);
  std::sort(c.edges.begin(), c.edges.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return by_name(a.first, b.first);
    return by_name(a.second, b.second);
  });
  return c;
}

// The relations through which `to` reads `from`.
std::vector<std::string> edge_relations(const Registry& reg, uint32_t from, uint32_t to, bool constraints) {
  std::vector<std::string> out;
  for (uint32_t r : reg.defined_by(to)) {
    if (reg.relation(r).role == Role::Constraint && !constraints) continue;
    auto deps = reg.relation_deps(r);
    if (std::find(deps.begin(), deps.end(), from) != deps.end()) out.push_back(reg.relation(r).name);
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '\n') {
      out += "\\n";  // DOT's own line break inside a label
      continue;
    }
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

std::string export_dot(const Registry& reg, const ConeExport& spec) {
  Graph g(reg, spec.constraints);
  Cone c = collect(reg, g, spec);
  std::string out = "digraph gpu_stack {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  for (uint32_t v : c.nodes) {
    const Variable& var = reg.var(v);
    // Colour tells the export's root, constants and root inputs apart at a glance.
    const bool is_root = v == spec.root || std::find(spec.more_roots.begin(), spec.more_roots.end(), v) != spec.more_roots.end();
    const char* fill = is_root ? "#c8e6c9" : var.is_constant ? "#fff3b0" : reg.kind(v) == VarKind::Root ? "#ffcdd2" : nullptr;
    out += "  " + quoted(var.name) + " [label=" + quoted(var.name + "\n[" + var.unit + "]");
    if (fill) out += std::string(", style=filled, fillcolor=\"") + fill + "\"";
    out += "];\n";
  }
  for (const auto& [from, to] : c.edges) out += "  " + quoted(reg.var(from).name) + " -> " + quoted(reg.var(to).name) + ";\n";
  return out + "}\n";
}

std::string export_json(const Registry& reg, const ConeExport& spec) {
  using json = nlohmann::ordered_json;
  Graph g(reg, spec.constraints);
  Cone c = collect(reg, g, spec);
  json roots = json::array({reg.var(spec.root).name});
  for (uint32_t r : spec.more_roots) roots.push_back(reg.var(r).name);
  json j{{"root", reg.var(spec.root).name},
         {"roots", roots},
         {"direction", spec.dependents ? "dependents" : "dependencies"},
         {"constraints", spec.constraints},
         {"nodes", json::array()},
         {"edges", json::array()}};
  for (uint32_t v : c.nodes) {
    const Variable& var = reg.var(v);
    json defs = json::array();
    for (uint32_t r : reg.definitions(v)) defs.push_back(reg.relation(r).name);
    j["nodes"].push_back({{"name", var.name},
                          {"symbol", var.symbol},
                          {"unit", var.unit},
                          {"si_unit", reg.units().describe(var.dim)},
                          {"system", reg.image().systems[var.system].name},
                          {"kind", var_kind_name(reg.kind(v))},
                          {"description", var.description},
                          {"definitions", defs},
                          {"location", reg.location(var.span)}});
  }
  for (const auto& [from, to] : c.edges)
    j["edges"].push_back({{"from", reg.var(from).name}, {"to", reg.var(to).name}, {"relations", edge_relations(reg, from, to, spec.constraints)}});
  return j.dump(2) + "\n";
}

}  // namespace gs
