// Pass `check_definitions`: what the lowered relations define, as a whole. An approximation's fallback
// is another approximation of the same variable (E-FALLBACK); an export names a variable under a known
// role, once (E-EXPORT, E-DUPLICATE); a variable has at most one identity and none beside variants, and
// its variants have distinct keys (E-MULTIPLE-DEFINITION, E-DUPLICATE).
#include <algorithm>

#include "compiler/builtins.h"
#include "compiler/passes/passes.h"
#include "image/suggest.h"

namespace gs::compiler {
namespace {

using pass_util::join_names;

class Definitions {
 public:
  Definitions(Model& m, Diagnostics& d) : m_(m), files_(*m.files), d_(d) {}

  void run() {
    link_fallbacks();
    for (uint32_t s = 0; s < files_.size(); ++s) declare_exports(files_[s], s);
    check_definitions();
  }

 private:
  Model& m_;
  const std::vector<AFile>& files_;
  Diagnostics& d_;
  Image& img_ = m_.img;
  std::map<std::string, uint32_t>& relation_ids_ = m_.relation_ids;
  std::map<uint32_t, Location>& relation_at_ = m_.relation_at;
  std::map<uint32_t, Model::FallbackRef>& fallback_refs_ = m_.fallback_refs;

  Span span(const Location& at) const { return m_.span(at); }

  void link_fallbacks() {
    for (const auto& [id, ref] : fallback_refs_) {
      Relation& r = img_.relations[id];
      const std::string full = ref.target.name.find('.') == std::string::npos ? ref.system + "." + ref.target.name : ref.target.name;
      auto it = relation_ids_.find(full);
      if (it == relation_ids_.end()) {
        std::vector<std::string> candidates;  // the other relations of the same variable, as they would be written
        for (uint32_t k = 0; k < img_.relations.size(); ++k)
          if (k != id && img_.relations[k].lhs_var == r.lhs_var) candidates.push_back(local_name(img_.relations[k], ref.system));
        d_.error(ref.target.at, "E-FALLBACK", "unknown relation '" + ref.target.name + "' named as the fallback of '" + r.name + "'",
                 did_you_mean(ref.target.name, candidates));
        continue;
      }
      const Relation& t = img_.relations[it->second];
      if (it->second == id) {
        d_.error(ref.target.at, "E-FALLBACK", "'" + r.name + "' names itself as its fallback", "name another approximation of the same variable");
      } else if (t.lhs_var != r.lhs_var) {
        d_.error(ref.target.at, "E-FALLBACK", "the fallback '" + t.name + "' defines '" + var_name(t.lhs_var) + "', but '" + r.name +
                     "' defines '" + var_name(r.lhs_var) + "'", "a fallback gives the same variable another way");
      } else if (t.role != Role::Approximation) {
        d_.error(ref.target.at, "E-FALLBACK", "the fallback '" + t.name + "' is " + std::string(t.role == Role::Identity ? "an " : "a ") + role_name(t.role) + " relation, not an approx",
                 "write it as 'approx NAME when <where it holds>: ...': an identity or variant would be selected instead of '" + r.name + "'");
      } else {
        r.fallback = int32_t(it->second);
      }
    }
  }

  // `export ROLE [LABEL =] VAR "text"`: the names the tools read by role, checked like any reference.
  void declare_exports(const AFile& f, uint32_t system) {
    struct RoleRule {
      const char* role;
      bool labelled;
    };
    static const RoleRule kRoles[] = {{kExportHeadline, true}, {kExportQuestion, true}, {kExportBreakdown, true}, {kExportInput, false}};
    for (const auto& decl : f.decls) {
      if (decl.k != ADecl::K::Export) continue;
      const RoleRule* rule = nullptr;
      std::vector<std::string> roles;
      for (const auto& r : kRoles) {
        roles.push_back(r.role);
        if (decl.export_role == r.role) rule = &r;
      }
      if (!rule) {
        d_.error(decl.at, "E-EXPORT", "unknown export role '" + decl.export_role + "'",
                 did_you_mean(decl.export_role, roles) + (did_you_mean(decl.export_role, roles).empty() ? "" : " ") +
                     "The roles are " + join_names(roles) + ".");
        continue;
      }
      if (rule->labelled && decl.export_label.empty()) {
        d_.error(decl.at, "E-EXPORT", "an export with role '" + decl.export_role + "' needs a label",
                 "write 'export " + decl.export_role + " LABEL = " + decl.export_target->name + "'");
        continue;
      }
      AExpr ref;
      ref.k = AExpr::K::Ref, ref.text = decl.export_target->name, ref.at = ref.begin = decl.export_target->at;
      auto target = pass_util::resolve_name(m_, system, ref, d_);
      if (!target) continue;
      if (target->k != TExpr::K::Var) {
        d_.error(ref.at, "E-EXPORT", "'" + ref.text + "' is not a variable of the model", "export a declared variable");
        continue;
      }
      const uint32_t var = target->var;
      bool duplicate_entry = false;
      for (const auto& e : img_.exports)
        if (e.role == decl.export_role && (e.var == var || (!e.label.empty() && e.label == decl.export_label))) {
          d_.error(decl.at, "E-DUPLICATE", "role '" + decl.export_role + "' already exports " +
                   (e.var == var ? "'" + ref.text + "'" : "a label '" + e.label + "'"), "each role names a variable and a label once");
          duplicate_entry = true;
          break;
        }
      if (duplicate_entry) continue;
      img_.exports.push_back({decl.export_role, decl.export_label, decl.description, var, span(decl.at)});
    }
  }

  std::string var_name(int32_t v) const { return v >= 0 ? img_.vars[size_t(v)].name : "?"; }

  // How a relation is written from `system`: its local name there, its full name elsewhere.
  static std::string local_name(const Relation& r, const std::string& system) {
    return r.name.starts_with(system + ".") ? r.name.substr(system.size() + 1) : r.name;
  }

  // One selected definition per variable: at most one identity, and no identity beside variants.
  void check_definitions() {
    std::map<uint32_t, std::vector<uint32_t>> identities;
    for (uint32_t i = 0; i < img_.relations.size(); ++i)
      if (img_.relations[i].role == Role::Identity) identities[uint32_t(img_.relations[i].lhs_var)].push_back(i);
    std::map<std::pair<uint32_t, std::string>, uint32_t> variant_keys;
    for (uint32_t i = 0; i < img_.relations.size(); ++i) {
      const Relation& r = img_.relations[i];
      if (r.role != Role::Variant) continue;
      auto key = std::make_pair(uint32_t(r.lhs_var), r.variant_key);
      if (auto it = variant_keys.find(key); it != variant_keys.end())
        d_.error(relation_at_[i], "E-DUPLICATE", "variable '" + img_.vars[key.first].name + "' already has a variant keyed '" +
                 r.variant_key + "' ('" + img_.relations[it->second].name + "')", "variant keys must differ for one variable");
      else
        variant_keys[key] = i;
    }
    for (const auto& [var, rels] : identities) {
      if (rels.size() < 2) continue;
      const Relation& first = img_.relations[rels[0]];
      d_.error(relation_at_[rels[1]], "E-MULTIPLE-DEFINITION",
               "'" + img_.vars[var].name + "' is defined by two identities, '" + first.name + "' and '" + img_.relations[rels[1]].name + "'",
               "turn them into variants with keys, e.g. 'variant " + img_.relations[rels[1]].name.substr(img_.relations[rels[1]].name.find('.') + 1) + " [key]: ...'");
    }
  }
};

}  // namespace

void check_definitions(Model& m, Diagnostics& diags) { Definitions(m, diags).run(); }

std::string print_definitions(const Model& m) {
  const Image& img = m.img;
  std::map<int32_t, std::vector<uint32_t>> by_var;
  for (uint32_t i = 0; i < img.relations.size(); ++i)
    if (img.relations[i].lhs_var >= 0) by_var[img.relations[i].lhs_var].push_back(i);
  std::string s;
  for (const auto& [v, rels] : by_var) {
    s += "#" + std::to_string(v) + " " + img.vars[size_t(v)].name + ":";
    for (uint32_t i : rels) {
      const Relation& r = img.relations[i];
      s += std::string(" ") + role_name(r.role) + " " + r.name;
      if (!r.variant_key.empty()) s += " [" + r.variant_key + "]";
      if (r.fallback >= 0) s += " (fallback " + img.relations[size_t(r.fallback)].name + ")";
      s += ";";
    }
    s += "\n";
  }
  for (const auto& e : img.exports)
    s += "export " + e.role + (e.label.empty() ? "" : " " + e.label + " =") + " #" + std::to_string(e.var) + " " + img.vars[e.var].name + "\n";
  return s;
}

}  // namespace gs::compiler
