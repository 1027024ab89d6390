// Pass `check_cycles`: following fallbacks from any approximation ends (E-FALLBACK), and the identities
// form a DAG, so the resolver always has an order to evaluate in (E-CYCLE).
#include <algorithm>
#include <set>

#include "compiler/passes/passes.h"

namespace gs::compiler {
namespace {

class Cycles {
 public:
  Cycles(Model& m, Diagnostics& d) : m_(m), d_(d) {}

  void run() {
    check_fallback_cycles();
    check_identity_cycles();
  }

 private:
  Model& m_;
  Diagnostics& d_;
  Image& img_ = m_.img;
  std::map<uint32_t, Location>& relation_at_ = m_.relation_at;
  std::map<uint32_t, Model::FallbackRef>& fallback_refs_ = m_.fallback_refs;

  // A chain of fallbacks that returns to where it started would never end.
  void check_fallback_cycles() {
    for (const auto& [id, ref] : fallback_refs_) {
      std::vector<uint32_t> chain{id};
      for (int32_t next = img_.relations[id].fallback; next >= 0; next = img_.relations[size_t(next)].fallback) {
        if (uint32_t(next) == id) {
          std::string path;
          for (uint32_t k : chain) path += img_.relations[k].name + " -> ";
          d_.error(ref.target.at, "E-FALLBACK", "fallbacks form a cycle: " + path + img_.relations[id].name,
                   "end the chain with an approximation that has no fallback");
          img_.relations[id].fallback = -1;  // reported once, from the first member
          break;
        }
        if (std::find(chain.begin(), chain.end(), uint32_t(next)) != chain.end()) break;  // a cycle further on
        chain.push_back(uint32_t(next));
      }
    }
  }
  // Identities must form a DAG: a cycle would leave the resolver with no order to evaluate in.
  void check_identity_cycles() {
    const size_t n = img_.vars.size();
    std::vector<int32_t> via(n, -1);  // identity that defines each variable
    for (uint32_t i = 0; i < img_.relations.size(); ++i)
      if (img_.relations[i].role == Role::Identity && via[size_t(img_.relations[i].lhs_var)] < 0)
        via[size_t(img_.relations[i].lhs_var)] = int32_t(i);
    std::vector<uint8_t> color(n, 0);
    std::vector<uint32_t> stack;
    std::set<uint32_t> reported;
    // Iterative DFS over "variable -> variables its identity reads".
    for (uint32_t root = 0; root < n; ++root) {
      if (color[root]) continue;
      std::vector<std::pair<uint32_t, size_t>> work{{root, 0}};
      color[root] = 1, stack.push_back(root);
      while (!work.empty()) {
        auto& [v, next] = work.back();
        std::vector<uint32_t> deps;
        if (via[v] >= 0) deps = expr_variables(img_.relations[size_t(via[v])].rhs);
        if (next < deps.size()) {
          uint32_t w = deps[next++];
          if (color[w] == 0) {
            color[w] = 1, stack.push_back(w), work.push_back({w, 0});
          } else if (color[w] == 1 && !reported.count(w)) {
            auto from = std::find(stack.begin(), stack.end(), w);
            std::string path;
            for (auto it = from; it != stack.end(); ++it) path += img_.vars[*it].name + " -> ";
            path += img_.vars[w].name;
            reported.insert(w);
            d_.error(relation_at_[uint32_t(via[v])], "E-CYCLE", "identity relations form a cycle: " + path,
                     "break the cycle: make one of these a root input, a variant or an approximation");
          }
        } else {
          color[v] = 2, stack.pop_back(), work.pop_back();
        }
      }
    }
    m_.acyclic = reported.empty();
  }
};

}  // namespace

void check_cycles(Model& m, Diagnostics& diags) { Cycles(m, diags).run(); }

// Each fallback chain, and whether the identities form a DAG.
std::string print_cycles(const Model& m) {
  const Image& img = m.img;
  std::string s;
  for (uint32_t i = 0; i < img.relations.size(); ++i) {
    const Relation& r = img.relations[i];
    if (r.fallback < 0) continue;
    s += "fallbacks: " + r.name;
    std::set<int32_t> seen{int32_t(i)};
    for (int32_t k = r.fallback; k >= 0 && seen.insert(k).second; k = img.relations[size_t(k)].fallback) s += " -> " + img.relations[size_t(k)].name;
    s += "\n";
  }
  size_t identities = 0;
  for (const auto& r : img.relations) identities += r.role == Role::Identity;
  s += "identities: " + std::to_string(identities) + ", acyclic: " + (m.acyclic ? "yes" : "no") + "\n";
  return s;
}

}  // namespace gs::compiler
