#include "compiler/analyze.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "compiler/builtins.h"
#include "compiler/lower.h"
#include "compiler/symbols.h"
#include "image/suggest.h"

namespace gs::compiler {
namespace {

const char* kPhysicsSystem = "physics";

Span span_of(const Location& at, const std::map<const SourceFile*, uint32_t>& file_ids) {
  auto it = file_ids.find(at.file);
  return {it == file_ids.end() ? 0u : it->second, at.line, at.column};
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Quoted "head name", as a user wrote it.
std::string quoted_head(Head h, const std::string& name) {
  static const char* words[] = {"eq", "variant", "approx", "constraint", "iterate", "ode", "stochastic"};
  std::string s = "'";
  return s.append(words[int(h)]).append(" ").append(name).append("'");
}

// While alive, adds "in instance 'x' at file:line:col" to every diagnostic raised about a declaration
// that a template instance stamped out, since the caret points into the template.
class InstanceNote {
 public:
  InstanceNote(Diagnostics& d, const ADecl& decl) : d_(d), decl_(decl), first_(d.size()) {}
  ~InstanceNote() {
    if (decl_.from_instance.empty()) return;
    const Location& at = decl_.from_instance_at;
    d_.annotate_since(first_, "in instance '" + decl_.from_instance + "' at " + (at.file ? at.file->path : std::string("?")) + ":" +
                                  std::to_string(at.line) + ":" + std::to_string(at.column));
  }
  InstanceNote(const InstanceNote&) = delete;
  InstanceNote& operator=(const InstanceNote&) = delete;

 private:
  Diagnostics& d_;
  const ADecl& decl_;
  size_t first_;
};

class Analyzer {
 public:
  Analyzer(const std::vector<AFile>& files, Diagnostics& d) : files_(files), d_(d) {}

  Image run() {
    for (uint32_t i = 0; i < files_.size(); ++i) {
      file_ids_[files_[i].source] = i;
      img_.files.push_back(files_[i].source->path);
      img_.file_hashes.push_back(sha256_hex(files_[i].source->text.data(), files_[i].source->text.size()));
    }
    declare_systems();
    for (const auto& f : files_) declare_references(f);
    for (uint32_t s = 0; s < files_.size(); ++s) {
      declare_units(files_[s]);
      declare_variables(files_[s], s);
    }
    check_symbols_against_names();
    for (uint32_t s = 0; s < files_.size(); ++s) declare_relations(files_[s], s);
    link_fallbacks();
    for (uint32_t s = 0; s < files_.size(); ++s) declare_exports(files_[s], s);
    check_definitions();
    check_identity_cycles();
    build_adjacency(img_);
    return std::move(img_);
  }

 private:
  const std::vector<AFile>& files_;
  Diagnostics& d_;
  Image img_;
  std::map<const SourceFile*, uint32_t> file_ids_;
  std::map<std::string, uint32_t> system_ids_, ref_ids_, var_ids_, relation_ids_;
  std::map<std::string, Location> unit_at_, dim_at_, prefix_at_, ref_at_;
  std::vector<std::set<uint32_t>> visible_systems_;
  std::vector<std::string> namespaces_;                // per system: the prefix its variables carry
  std::map<std::string, uint32_t> namespace_owner_;    // namespace -> system
  std::vector<bool> foreign_systems_;                  // per system: exempt from the rule as a whole  // per system: itself and everything it uses, transitively
  std::map<uint32_t, Location> var_at_;
  std::map<std::string, uint32_t> symbol_ids_;  // symbol -> variable
  std::map<uint32_t, Location> symbol_at_;
  std::map<uint32_t, Location> relation_at_;
  struct FallbackRef {
    ANameRef target;
    std::string system;  // a target written without a system is in the approximation's own
  };
  std::map<uint32_t, FallbackRef> fallback_refs_;  // approximation -> the fallback it names

  Span span(const Location& at) const { return span_of(at, file_ids_); }

  void duplicate(const Location& at, const std::string& what, const std::string& name, const Location& first) {
    std::string where = first.file ? first.file->path + ":" + std::to_string(first.line) + ":" + std::to_string(first.column) : "earlier";
    d_.error(at, "E-DUPLICATE", what + " '" + name + "' is already declared at " + where, "names must be unique; rename one of them");
  }

  void declare_systems() {
    for (uint32_t i = 0; i < files_.size(); ++i) {
      const AFile& f = files_[i];
      System s;
      s.name = f.system;
      s.description = f.system_description.empty() ? f.system_doc : f.system_description;
      s.file = i;
      if (auto it = system_ids_.find(f.system); it != system_ids_.end())
        duplicate(f.system_at, "system", f.system, files_[it->second].system_at);
      else
        system_ids_[f.system] = i;
      std::set<uint32_t> visible{i};
      for (const auto& u : f.uses) {
        auto it = system_ids_.find(u.name);
        if (it != system_ids_.end() && it->second < i) {
          s.uses.push_back(it->second);
          visible.insert(visible_systems_[it->second].begin(), visible_systems_[it->second].end());
          continue;
        }
        auto later = std::find_if(files_.begin() + i, files_.end(), [&](const AFile& g) { return g.system == u.name; });
        if (u.name == f.system)  // found by the search below too, but "loaded after it" would be wrong
          d_.error(u.at, "E-USE-ORDER", "system '" + f.system + "' uses itself",
                   "remove this 'use'; a system always sees its own variables");
        else if (later != files_.end())
          d_.error(u.at, "E-USE-ORDER", "system '" + f.system + "' uses '" + u.name + "', which is loaded after it",
                   "a system may only use systems loaded before it; move '" + u.name + "' earlier in the load order");
        else {
          std::vector<std::string> names;
          for (const auto& g : files_) names.push_back(g.system);
          d_.error(u.at, "E-UNKNOWN-SYSTEM", "unknown system '" + u.name + "'", did_you_mean(u.name, names));
        }
      }
      // The units system is everybody's vocabulary.
      if (auto it = system_ids_.find("units"); it != system_ids_.end()) visible.insert(it->second);
      img_.systems.push_back(std::move(s));
      visible_systems_.push_back(std::move(visible));
      declare_namespace(f, i);
    }
  }

  // The system's name is its namespace unless `prefix` names another; no two systems share one.
  void declare_namespace(const AFile& f, uint32_t system) {
    const std::string ns = f.prefix.empty() ? f.system : f.prefix;
    const Location at = f.prefix.empty() ? f.system_at : f.prefix_at;
    namespaces_.push_back(ns);
    foreign_systems_.push_back(f.foreign_at.file != nullptr);
    if (f.foreign_at.file && f.foreign_reason.find_first_not_of(" \t") == std::string::npos)
      d_.error(f.foreign_at, "E-NAMESPACE", "'foreign' needs a reason", "say why this system's variables keep other systems' names");
    if (in_math_namespace(ns)) {
      d_.error(at, "E-NAMESPACE", "the namespace 'math' is built in (math.pi, math.e)", "choose another name or prefix for this system");
      return;
    }
    auto [it, fresh] = namespace_owner_.emplace(ns, system);
    if (!fresh && img_.systems[it->second].name != f.system)
      d_.error(at, "E-NAMESPACE", "system '" + f.system + "' takes the namespace '" + ns + "', which belongs to system '" +
               img_.systems[it->second].name + "'",
               "choose another prefix, or drop it so the namespace is '" + f.system + "'");
  }

  // A variable carries its system's namespace: `var econ.x` belongs in the system whose prefix is econ.
  // `foreign "reason"` is the explicit exception for a name kept elsewhere (presets and tests use it).
  bool check_namespace(const ADecl& decl, uint32_t system) {
    const std::string& ns = namespaces_[system];
    if (foreign_systems_[system]) return true;  // `system t foreign "reason"`: a test model's borrowed names
    const bool inside = decl.name.rfind(ns + ".", 0) == 0;
    const bool foreign = decl.foreign_at.file != nullptr;
    if (foreign && inside) {
      d_.error(decl.foreign_at, "E-NAMESPACE", "'" + decl.name + "' is in its own system's namespace '" + ns + "', so it needs no 'foreign'",
               "remove the 'foreign' clause");
      return false;
    }
    if (foreign && decl.foreign_reason.find_first_not_of(" \t") == std::string::npos) {
      d_.error(decl.foreign_at, "E-NAMESPACE", "'foreign' needs a reason", "say why the name stays outside namespace '" + ns + "'");
      return false;
    }
    if (inside || foreign) return true;
    const std::string head = decl.name.substr(0, decl.name.find('.'));
    const std::string local = decl.name.find('.') == std::string::npos ? decl.name : decl.name.substr(decl.name.find('.') + 1);
    auto owner = namespace_owner_.find(head);
    const std::string& system_name = img_.systems[system].name;
    std::string message = "variable '" + decl.name + "' is declared in system '" + system_name + "', whose namespace is '" + ns + "'";
    if (owner != namespace_owner_.end() && owner->second != system)
      message += "; '" + head + "' is the namespace of system '" + img_.systems[owner->second].name + "'";
    d_.error(decl.at, "E-NAMESPACE", message,
             "name it '" + ns + "." + local + "'" +
                 (owner != namespace_owner_.end() && owner->second != system ? ", or declare it in system '" + img_.systems[owner->second].name + "'" : "") +
                 "; a name that must stay as it is takes 'foreign \"reason\"'");
    return false;
  }

  void declare_references(const AFile& f) {
    for (const auto& decl : f.decls) {
      if (decl.k != ADecl::K::Ref) continue;
      if (auto it = ref_ids_.find(decl.name); it != ref_ids_.end()) {
        duplicate(decl.at, "reference", decl.name, ref_at_[decl.name]);
        continue;
      }
      ref_at_[decl.name] = decl.at;
      ref_ids_[decl.name] = uint32_t(img_.refs.size());
      img_.refs.push_back({decl.name, decl.citation, decl.ref_kind.empty() ? "paper" : decl.ref_kind, decl.url,
                           decl.locator, decl.year, span(decl.at)});
    }
  }

  std::vector<uint32_t> resolve_refs(const std::vector<ANameRef>& refs) {
    std::vector<uint32_t> ids;
    std::vector<std::string> names;
    for (const auto& [n, id] : ref_ids_) names.push_back(n);
    for (const auto& r : refs) {
      auto it = ref_ids_.find(r.name);
      if (it == ref_ids_.end()) d_.error(r.at, "E-UNKNOWN-REF", "unknown reference '" + r.name + "'", did_you_mean(r.name, names));
      else ids.push_back(it->second);
    }
    return ids;
  }

  void declare_units(const AFile& f) {
    UnitTable& t = img_.units;
    for (const auto& decl : f.decls) {
      if (decl.k == ADecl::K::Dimension) {
        if (dim_at_.count(decl.name)) {
          duplicate(decl.at, "dimension", decl.name, dim_at_[decl.name]);
          continue;
        }
        dim_at_[decl.name] = decl.at;
        t.dimension_names.push_back(decl.name);
      } else if (decl.k == ADecl::K::Prefix) {
        if (prefix_at_.count(decl.name)) {
          duplicate(decl.at, "prefix", decl.name, prefix_at_[decl.name]);
          continue;
        }
        if (!(decl.scale > 0) || !std::isfinite(decl.scale)) {
          d_.error(decl.at, "E-UNIT-SCALE", "the scale of prefix '" + decl.name + "' must be a positive, finite number",
                   "a prefix multiplies a unit, e.g. 'prefix k = 1e3' or 'prefix m = 1e-3'");
          continue;
        }
        prefix_at_[decl.name] = decl.at;
        t.prefixes.push_back({decl.name, decl.scale});
        t.index();
      } else if (decl.k == ADecl::K::Unit) {
        if (unit_at_.count(decl.name)) {
          duplicate(decl.at, "unit", decl.name, unit_at_[decl.name]);
          continue;
        }
        UnitDef u{decl.name, decl.scale, Dim{}, decl.description};
        if (!decl.base_dim.empty()) {
          auto it = std::find(t.dimension_names.begin(), t.dimension_names.end(), decl.base_dim);
          if (it == t.dimension_names.end()) {
            d_.error(decl.base_at, "E-UNKNOWN-DIMENSION", "unknown dimension '" + decl.base_dim + "'",
                     did_you_mean(decl.base_dim, t.dimension_names));
            continue;
          }
          u.dim = Dim::base(size_t(it - t.dimension_names.begin()));
        } else if (decl.unit) {
          auto q = check_unit(*decl.unit, t, d_);
          if (!q) continue;
          u.scale *= q->scale, u.dim = q->dim;
        }
        if (!(u.scale > 0) || !std::isfinite(u.scale)) {
          d_.error(decl.at, "E-UNIT-SCALE", "the scale of unit '" + decl.name + "' must be positive and finite" +
                   (std::isfinite(u.scale) ? "" : " (it is beyond the range of a double, about 1.8e308)"),
                   "a unit is a positive multiple of its base, e.g. 'unit h = 3600 s'");
          continue;
        }
        unit_at_[decl.name] = decl.at;
        t.units.push_back(std::move(u));
        t.index();
      }
    }
  }

  Assumptions check_assumptions(const ADecl& decl, double scale) {
    Assumptions a;
    int signs = 0;
    for (const auto& as : decl.assumptions) {
      const std::string& n = as.name;
      if (n == "positive") a.sign = Sign::Positive, ++signs;
      else if (n == "nonnegative") a.sign = Sign::Nonnegative, ++signs;
      else if (n == "negative") a.sign = Sign::Negative, ++signs;
      else if (n == "nonpositive") a.sign = Sign::Nonpositive, ++signs;
      else if (n == "integer") a.integer = true;
      else if (n == "binary") a.binary = true, a.integer = true;
      else if (n == "range") {
        if (!as.lo) {
          d_.error(as.at, "E-ASSUME", "'range' needs bounds: range(lo, hi)", "give both bounds in the variable's unit, e.g. range(0, 1)");
          continue;
        }
        if (!(*as.lo <= *as.hi)) d_.error(as.at, "E-ASSUME", "range(lo, hi) needs lo <= hi", "swap the bounds");
        a.has_range = true, a.lo = *as.lo * scale, a.hi = *as.hi * scale;
      } else {
        d_.error(as.at, "E-ASSUME", "unknown assumption '" + n + "'",
                 did_you_mean(n, {"positive", "nonnegative", "negative", "nonpositive", "integer", "binary", "range"}));
      }
      if (n != "range" && as.lo) d_.error(as.at, "E-ASSUME", "'" + n + "' takes no bounds", "only range(lo, hi) takes bounds");
    }
    if (signs > 1) d_.error(decl.assumptions.front().at, "E-ASSUME", "choose at most one of positive, nonnegative, negative and nonpositive",
                              "keep the strongest sign that always holds");
    return a;
  }

  void declare_variables(const AFile& f, uint32_t system) {
    for (const auto& decl : f.decls) {
      if (decl.k != ADecl::K::Var && decl.k != ADecl::K::Const) continue;
      InstanceNote note(d_, decl);
      if (auto it = var_ids_.find(decl.name); it != var_ids_.end()) {
        duplicate(decl.at, decl.k == ADecl::K::Const ? "constant" : "variable", decl.name, var_at_[it->second]);
        continue;
      }
      if (in_math_namespace(decl.name)) {
        d_.error(decl.at, "E-NAMESPACE", "'" + decl.name + "' is in the built-in math namespace, which no model file may declare into",
                 "math constants are built in (" + join_names(math_constant_names()) + "); give this variable its system's prefix");
        continue;
      }
      if (decl.k == ADecl::K::Const && f.system != kPhysicsSystem) {
        d_.error(decl.keyword_at, "E-CONST-OUTSIDE-PHYSICS",
                 "constant '" + decl.name + "' is declared in system '" + f.system + "'; only the physics system may declare constants",
                 "only universal physical constants are constants; declare this as a 'var' and assign it in a scenario");
        continue;
      }
      check_namespace(decl, system);  // reported, but declared anyway: uses of the name stay quiet
      Variable v;
      v.name = decl.name, v.description = decl.description, v.doc = decl.doc, v.system = system;
      v.span = span(decl.at);
      auto q = check_unit(*decl.unit, img_.units, d_);
      if (q) v.unit = decl.unit->text, v.unit_scale = q->scale, v.dim = q->dim;
      v.refs = resolve_refs(decl.refs);
      if (decl.k == ADecl::K::Const) {
        v.is_constant = true, v.value = decl.value * v.unit_scale, v.assume.sign = Sign::Positive;
        if (!std::isfinite(v.value))
          d_.error(decl.at, "E-CONSTANT-VALUE", "the value of constant '" + decl.name + "' is beyond the range of a double (about 1.8e308)",
                   "check the exponent, or write the value in a larger unit");
        if (decl.refs.empty()) d_.error(decl.at, "E-CONST-SOURCE", "constant '" + decl.name + "' needs a source (ref ...)",
                                         "cite where the value comes from, e.g. 'ref codata2018'");
      } else {
        v.assume = check_assumptions(decl, v.unit_scale);
      }
      if (decl.symbol_at.file) v.symbol = checked_symbol(decl, uint32_t(img_.vars.size()));
      var_at_[uint32_t(img_.vars.size())] = decl.at;
      var_ids_[decl.name] = uint32_t(img_.vars.size());
      img_.vars.push_back(std::move(v));
    }
  }

  // The symbol of variable `id` when it is a usable one (E-SYMBOL), else "".
  std::string checked_symbol(const ADecl& decl, uint32_t id) {
    if (std::string problem = symbol_problem(decl.symbol); !problem.empty()) {
      d_.error(decl.symbol_at, "E-SYMBOL", "the symbol of '" + decl.name + "' " + problem,
               "a symbol is a short printable name without spaces, '=' or ',', e.g. symbol \"η_gemm\"");
      return "";
    }
    if (auto it = symbol_ids_.find(decl.symbol); it != symbol_ids_.end()) {
      const Location& first = symbol_at_[it->second];
      d_.error(decl.symbol_at, "E-DUPLICATE",
               "symbol '" + decl.symbol + "' already names '" + img_.vars[it->second].name + "' (" + first.file->path + ":" +
                   std::to_string(first.line) + ":" + std::to_string(first.column) + ")",
               "a symbol stands for one variable wherever a name is accepted; make them differ");
      return "";
    }
    symbol_ids_[decl.symbol] = id, symbol_at_[id] = decl.symbol_at;
    return decl.symbol;
  }

  // A symbol may not be another variable's name: `--assign NAME=...` would then be ambiguous.
  void check_symbols_against_names() {
    for (const auto& [symbol, id] : symbol_ids_)
      if (auto it = var_ids_.find(symbol); it != var_ids_.end() && it->second != id)
        d_.error(symbol_at_[id], "E-DUPLICATE", "symbol '" + symbol + "' of '" + img_.vars[id].name + "' is the name of another variable",
                 "a symbol stands for one variable wherever a name is accepted; choose another");
  }

  Scope scope_for(uint32_t system) const {
    Scope s;
    s.vars = &img_.vars, s.var_ids = &var_ids_, s.units = &img_.units, s.system = img_.systems[system].name;
    const auto& visible = visible_systems_[system];
    s.visible = [this, &visible](uint32_t v) { return visible.count(img_.vars[v].system) > 0; };
    s.owner = [this](uint32_t v) { return img_.systems[img_.vars[v].system].name; };
    return s;
  }

  // The left side of a value relation must be a bare, non-constant variable.
  std::optional<uint32_t> defined_variable(const AExpr& lhs, const ADecl& decl, const Scope& scope) {
    if (lhs.k != AExpr::K::Ref) {
      d_.error(lhs.at, "E-LHS-NOT-VARIABLE", "the left side of '" + decl.name + "' must be a single variable",
               "a value relation defines one variable; write the expression on the right, or use a constraint");
      return std::nullopt;
    }
    Expr scratch;
    if (!lower_expr(lhs, scope, d_, scratch)) return std::nullopt;
    uint32_t id = scratch.nodes[0].index;
    if (img_.vars[id].is_constant) {
      d_.error(lhs.at, "E-CONST-LHS", "'" + lhs.text + "' is a universal constant and cannot be defined by '" + decl.name + "'",
               "constants have fixed values; define a variable instead");
      return std::nullopt;
    }
    return id;
  }

  bool check_form(const ADecl& decl) {
    using B = ADecl::Body;
    const B expected = decl.head == Head::Constraint ? B::Condition : decl.head == Head::Iterate ? B::Iterate
                     : decl.head == Head::Ode ? B::Differential : decl.head == Head::Stochastic ? B::Stochastic : B::Equation;
    if (decl.body != expected) {
      static const char* forms[] = {"'variable = expression'", "'variable = map over k from initial times n'",
                                    "'derivative(variable, variable) = expression'", "'variable ~ distribution(parameters)'",
                                    "an inequality such as 'a <= b'"};
      d_.error(decl.keyword_at, "E-RELATION-FORM",
               quoted_head(decl.head, decl.name) + " must have the form " + forms[int(expected)],
               "each head has one form; see docs/language.md, section Relations");
      return false;
    }
    bool ok = true;
    if (decl.head == Head::Variant && !decl.variant_key) {
      d_.error(decl.at, "E-VARIANT-KEY", "variant '" + decl.name + "' has no key",
               "write 'variant " + decl.name + " [key]: ...' so scenarios can select it");
      ok = false;
    }
    if (decl.variant_key && decl.variant_key->name.find_first_of(" \t") != std::string::npos) {
      d_.error(decl.variant_key->at, "E-VARIANT-KEY", "variant key '" + decl.variant_key->name + "' contains a space",
               "a key is one word of letters, digits and underscores, e.g. [1f1b]");
      ok = false;
    }
    if (decl.head != Head::Variant && decl.variant_key) {
      d_.error(decl.variant_key->at, "E-VARIANT-KEY", "only variant relations take a key, and this is " + quoted_head(decl.head, decl.name),
               "write 'variant " + decl.name + " [key]: ...', or drop the key");
      ok = false;
    }
    if (decl.head == Head::Approx && !decl.validity) {
      d_.error(decl.at, "E-VALIDITY", "approximation '" + decl.name + "' needs a validity condition",
               "write 'approx " + decl.name + " when <condition>: ...'");
      ok = false;
    }
    if (decl.head != Head::Approx && decl.validity) {
      d_.error(decl.validity->at, "E-VALIDITY", "only approx relations take a 'when' condition, and this is " + quoted_head(decl.head, decl.name));
      ok = false;
    }
    if (decl.head != Head::Approx && decl.fallback) {
      d_.error(decl.fallback->at, "E-FALLBACK", "only approx relations take a fallback, and this is " + quoted_head(decl.head, decl.name),
               "an identity or variant holds wherever it is selected; drop 'fallback " + decl.fallback->name + "'");
      ok = false;
    }
    return ok;
  }

  void declare_relations(const AFile& f, uint32_t system) {
    const Scope scope = scope_for(system);
    for (const auto& decl : f.decls) {
      if (decl.k != ADecl::K::Relation) continue;
      InstanceNote note(d_, decl);
      Relation r;
      r.name = f.system + "." + decl.name;
      r.description = decl.description.empty() ? decl.doc : decl.description;
      r.system = system, r.span = span(decl.keyword_at), r.refs = resolve_refs(decl.refs);
      if (auto it = relation_ids_.find(r.name); it != relation_ids_.end()) {
        duplicate(decl.at, "relation", decl.name, relation_at_[it->second]);
        continue;
      }
      if (!check_form(decl)) continue;
      if (lower_relation(decl, scope, r)) {
        if (decl.fallback) fallback_refs_[uint32_t(img_.relations.size())] = {*decl.fallback, f.system};
        relation_at_[uint32_t(img_.relations.size())] = decl.at;
        relation_ids_[r.name] = uint32_t(img_.relations.size());
        img_.relations.push_back(std::move(r));
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
    const Scope scope = scope_for(system);
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
      Expr scratch;
      if (!lower_expr(ref, scope, d_, scratch)) continue;
      if (scratch.nodes.size() != 1 || scratch.nodes[0].op != Op::Var) {
        d_.error(ref.at, "E-EXPORT", "'" + ref.text + "' is not a variable of the model", "export a declared variable");
        continue;
      }
      const uint32_t var = scratch.nodes[0].index;
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

  bool same_dim(const Dim& a, const Dim& b, const Location& at, const std::string& what) {
    if (a == b) return true;
    d_.error(at, "E-UNIT-MISMATCH", what + ": left is " + img_.units.describe(a) + ", right is " + img_.units.describe(b),
             "the right side lacks a factor with dimension " + img_.units.describe(a / b));
    return false;
  }

  bool lower_relation(const ADecl& decl, const Scope& scope, Relation& r) {
    const std::string sides = "the two sides of '" + decl.name + "' have different dimensions";
    switch (decl.head) {
      case Head::Constraint: {
        const AExpr& c = *decl.cond;
        const bool inequality = c.k == AExpr::K::Binary && (c.op == Op::Lt || c.op == Op::Le || c.op == Op::Gt || c.op == Op::Ge);
        if (!inequality) {
          d_.error(c.at, "E-RELATION-FORM", "constraint '" + decl.name + "' must be an inequality (<, <=, > or >=)",
                   "a constraint bounds values; an equality defines one and belongs in 'eq'");
          return false;
        }
        r.role = Role::Constraint, r.kind = Kind::Inequality, r.compare = c.op;
        auto a = lower_expr(c.kids[0], scope, d_, r.lhs);
        auto b = a ? lower_expr(c.kids[1], scope, d_, r.rhs) : std::nullopt;
        if (!b) return false;
        if (a->boolean || b->boolean) {
          d_.error(c.at, "E-CONDITION", "the sides of constraint '" + decl.name + "' must be numbers, not conditions",
                   "write one inequality per constraint");
          return false;
        }
        return same_dim(a->dim, b->dim, c.at, sides);
      }
      case Head::Ode: {
        Expr scratch;
        auto ref = [](const ANameRef& n) {
          AExpr e;
          e.k = AExpr::K::Ref, e.text = n.name, e.at = e.begin = n.at;
          return e;
        };
        AExpr target = ref(*decl.target), indep = ref(*decl.indep);
        auto x = defined_variable(target, decl, scope);
        auto t = x ? lower_expr(indep, scope, d_, scratch) : std::nullopt;
        if (!t) return false;
        auto rhs = lower_expr(*decl.rhs, scope, d_, r.rhs);
        if (!rhs) return false;
        r.role = Role::Differential, r.kind = Kind::Differential, r.lhs_var = int32_t(*x);
        r.indep_var = int32_t(scratch.nodes[0].index), r.order = decl.order;
        Dim expected;
        try {
          expected = img_.vars[*x].dim / t->dim.pow(Rational::make(decl.order, 1));
        } catch (const std::overflow_error&) {  // an absurd order overflows the exponents
          d_.error(decl.at, "E-UNIT-EXPONENT", "the order of the derivative in '" + decl.name + "' is too large");
          return false;
        }
        return same_dim(expected, rhs->dim, decl.rhs->begin, sides);
      }
      default: break;
    }
    auto x = defined_variable(*decl.lhs, decl, scope);
    if (!x) return false;
    r.lhs_var = int32_t(*x);
    const Dim& target = img_.vars[*x].dim;
    Scope inner = scope;
    if (decl.head == Head::Iterate) {
      inner.binder = decl.binder, inner.binder_dim = target;
      r.role = Role::Identity, r.kind = Kind::Iterative;
      auto init = lower_expr(*decl.initial, scope, d_, r.initial);
      auto count = init ? lower_expr(*decl.count, scope, d_, r.iterations) : std::nullopt;
      if (!count) return false;
      if (!same_dim(target, init->dim, decl.initial->begin, "the initial value of '" + decl.name + "' has the wrong dimension")) return false;
      if (!count->dim.dimensionless()) {
        d_.error(decl.count->begin, "E-UNIT-MISMATCH", "the iteration count of '" + decl.name + "' must be dimensionless",
                 "the count after 'times' is a pure number of steps");
        return false;
      }
    } else if (decl.head == Head::Stochastic) {
      r.role = Role::Stochastic, r.kind = Kind::Stochastic, r.distribution = decl.distribution;
      for (const auto& p : decl.dist_params) {
        r.parameters.emplace_back();
        if (!lower_expr(p, scope, d_, r.parameters.back())) return false;
      }
      if (!decl.mean) return true;
      auto m = lower_expr(*decl.mean, scope, d_, r.rhs);
      return m && same_dim(target, m->dim, decl.mean->begin, "the mean of '" + decl.name + "' has the wrong dimension");
    } else {
      r.role = decl.head == Head::Variant ? Role::Variant : decl.head == Head::Approx ? Role::Approximation : Role::Identity;
      if (decl.variant_key) r.variant_key = decl.variant_key->name;
      if (decl.validity) {
        auto v = lower_expr(*decl.validity, scope, d_, r.validity);
        if (!v) return false;
        if (!v->boolean) {
          d_.error(decl.validity->begin, "E-VALIDITY", "the validity of '" + decl.name + "' is not a condition",
                   "write a comparison, e.g. 'when x < 1'");
          return false;
        }
      }
    }
    auto rhs = lower_expr(*decl.rhs, inner, d_, r.rhs);
    if (!rhs) return false;
    if (rhs->boolean) {
      d_.error(decl.rhs->begin, "E-CONDITION", "the right side of '" + decl.name + "' is a condition, not a value",
               "to pick a value by a condition, use piecewise { a if cond; b otherwise }");
      return false;
    }
    if (r.kind == Kind::Algebraic && !r.rhs.nodes.empty() && r.rhs.nodes.back().op == Op::Piecewise) r.kind = Kind::Piecewise;
    return same_dim(target, rhs->dim, decl.rhs->begin, sides);
  }

  // `approx a when ... fallback b`: b must be another approximation of the same variable, and following
  // fallbacks from any approximation must end (E-FALLBACK).
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
    // A chain of fallbacks that returns to where it started would never end.
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
  }
};

}  // namespace

Image analyze(const std::vector<AFile>& files, Diagnostics& diags) { return Analyzer(files, diags).run(); }

}  // namespace gs::compiler
