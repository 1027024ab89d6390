#include "runtime/headline.h"

#include <algorithm>
#include <vector>

namespace gs {

HeadlineCoverage headline_coverage(const Registry& reg, const Graph& graph) {
  HeadlineCoverage c;
  std::vector<uint8_t> in_cone(reg.var_count(), 0);
  for (const Export& e : reg.exports(kExportHeadline)) {
    ++c.targets_found;
    for (uint32_t v : graph.dependency_cone(e.var)) in_cone[v] = 1;
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
