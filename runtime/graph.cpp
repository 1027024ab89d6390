#include "runtime/graph.h"

#include <algorithm>

namespace gs {

Graph::Graph(const Registry& reg, bool include_constraints) : deps_(reg.var_count()), dependents_(reg.var_count()) {
  for (uint32_t v = 0; v < reg.var_count(); ++v) {
    auto& d = deps_[v];
    for (uint32_t r : reg.defined_by(v)) {
      const Relation& rel = reg.relation(r);
      if (rel.role == Role::Constraint && !include_constraints) continue;
      for (uint32_t w : reg.relation_deps(r))
        if (w != v) d.push_back(w);
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    for (uint32_t w : d) dependents_[w].push_back(v);
  }
}

std::vector<uint32_t> Graph::cone(uint32_t var, const std::vector<std::vector<uint32_t>>& edges) const {
  std::vector<uint8_t> seen(edges.size(), 0);
  std::vector<uint32_t> stack{var}, out;
  seen[var] = 1;
  while (!stack.empty()) {
    uint32_t v = stack.back();
    stack.pop_back();
    out.push_back(v);
    for (uint32_t w : edges[v])
      if (!seen[w]) seen[w] = 1, stack.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> Graph::dependency_cone(uint32_t var) const { return cone(var, deps_); }
std::vector<uint32_t> Graph::dependent_cone(uint32_t var) const { return cone(var, dependents_); }
size_t Graph::dependent_count(uint32_t var) const { return cone(var, dependents_).size() - 1; }

Graph::Order Graph::topological_order() const {
  const size_t n = deps_.size();
  std::vector<size_t> indegree(n);
  std::vector<uint32_t> ready;
  for (uint32_t v = 0; v < n; ++v) {
    indegree[v] = deps_[v].size();
    if (indegree[v] == 0) ready.push_back(v);
  }
  // Popping from the back, so seed in reverse to take low ids (declaration order) first.
  std::reverse(ready.begin(), ready.end());
  Order out;
  while (!ready.empty()) {
    uint32_t v = ready.back();
    ready.pop_back();
    out.order.push_back(v);
    for (uint32_t w : dependents_[v])
      if (--indegree[w] == 0) ready.push_back(w);
  }
  for (uint32_t v = 0; v < n; ++v)
    if (indegree[v] > 0) out.blocked.push_back(v);
  return out;
}

std::vector<std::vector<uint32_t>> Graph::cycles() const {
  // Tarjan's algorithm, iterative so deep models cannot overflow the call stack.
  const size_t n = deps_.size();
  constexpr uint32_t kUnvisited = UINT32_MAX;
  std::vector<uint32_t> index(n, kUnvisited), low(n, 0);
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<uint32_t> stack;
  std::vector<std::vector<uint32_t>> out;
  uint32_t counter = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    std::vector<std::pair<uint32_t, size_t>> work{{root, 0}};
    index[root] = low[root] = counter++, stack.push_back(root), on_stack[root] = 1;
    while (!work.empty()) {
      auto& [v, next] = work.back();
      if (next < deps_[v].size()) {
        uint32_t w = deps_[v][next++];
        if (index[w] == kUnvisited) {
          index[w] = low[w] = counter++, stack.push_back(w), on_stack[w] = 1;
          work.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const uint32_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::vector<uint32_t> component;
      uint32_t w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = 0;
        component.push_back(w);
      } while (w != done);
      const bool self_loop = std::binary_search(deps_[done].begin(), deps_[done].end(), done);
      if (component.size() > 1 || self_loop) {
        std::sort(component.begin(), component.end());
        out.push_back(std::move(component));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> Graph::leaves() const {
  std::vector<uint32_t> out;
  for (uint32_t v = 0; v < dependents_.size(); ++v)
    if (dependents_[v].empty()) out.push_back(v);
  return out;
}

}  // namespace gs
