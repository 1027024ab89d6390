// Exports a dependency (or dependent) cone of the variable graph as Graphviz DOT or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/registry.h"

namespace gs {

struct ConeExport {
  uint32_t root = 0;
  std::vector<uint32_t> more_roots;  // further roots: the export is the union of their cones
  bool dependents = false;   // the variables that read the root, instead of those it reads
  bool constraints = false;  // let constraints link variables too
};

std::string export_dot(const Registry& reg, const ConeExport& spec);
std::string export_json(const Registry& reg, const ConeExport& spec);

}  // namespace gs
