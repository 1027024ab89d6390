// Pass `declare`: the model's tables. Systems (their `use` lists and namespaces), references,
// dimensions, prefixes, units, variables and symbols are entered in load order, with the duplicate,
// namespace, constant, assumption and symbol rules; every relation declaration gets its entry in
// Model::relations with its full name and citations (a name used twice is E-DUPLICATE).
#include <algorithm>
#include <cmath>

#include "compiler/builtins.h"
#include "compiler/passes/passes.h"
#include "compiler/symbols.h"
#include "image/suggest.h"

namespace gs::compiler {
namespace {

using pass_util::check_unit;
using pass_util::join_names;

const char* kPhysicsSystem = "physics";

// While alive, adds "in instance 'x' at file:line:col" to every diagnostic raised about a declaration
// that a template instance stamped out, since the caret points into the template.
class InstanceNote {
 public:
  InstanceNote(Diagnostics& d, const ADecl& decl) : d_(d), decl_(decl), first_(d.size()) {}
  ~InstanceNote() {
    if (!decl_.from_instance.empty()) d_.annotate_since(first_, pass_util::instance_note(decl_));
  }
  InstanceNote(const InstanceNote&) = delete;
  InstanceNote& operator=(const InstanceNote&) = delete;

 private:
  Diagnostics& d_;
  const ADecl& decl_;
  size_t first_;
};

class Declarer {
 public:
  Declarer(Model& m, Diagnostics& d) : m_(m), files_(*m.files), d_(d) {}

  void run() {
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
  }

 private:
  Model& m_;
  const std::vector<AFile>& files_;
  Diagnostics& d_;
  Image& img_ = m_.img;
  std::map<const SourceFile*, uint32_t>& file_ids_ = m_.file_ids;
  std::map<std::string, uint32_t>& system_ids_ = m_.system_ids;
  std::map<std::string, uint32_t>& ref_ids_ = m_.ref_ids;
  std::map<std::string, uint32_t>& var_ids_ = m_.var_ids;
  std::map<std::string, Location>& unit_at_ = m_.unit_at;
  std::map<std::string, Location>& dim_at_ = m_.dim_at;
  std::map<std::string, Location>& prefix_at_ = m_.prefix_at;
  std::map<std::string, Location>& ref_at_ = m_.ref_at;
  std::vector<std::set<uint32_t>>& visible_systems_ = m_.visible_systems;
  std::vector<std::string>& namespaces_ = m_.namespaces;
  std::map<std::string, uint32_t>& namespace_owner_ = m_.namespace_owner;
  std::vector<bool>& foreign_systems_ = m_.foreign_systems;
  std::map<uint32_t, Location>& var_at_ = m_.var_at;
  std::map<std::string, uint32_t>& symbol_ids_ = m_.symbol_ids;
  std::map<uint32_t, Location>& symbol_at_ = m_.symbol_at;
  std::map<std::string, size_t> relation_decl_;  // full name -> index in m_.relations

  Span span(const Location& at) const { return m_.span(at); }

  void duplicate(const Location& at, const std::string& what, const std::string& name, const Location& first) {
    pass_util::duplicate(d_, at, what, name, first);
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

  std::vector<uint32_t> resolve_refs(const std::vector<ANameRef>& refs, Diagnostics& d) {
    std::vector<uint32_t> ids;
    std::vector<std::string> names;
    for (const auto& [n, id] : ref_ids_) names.push_back(n);
    for (const auto& r : refs) {
      auto it = ref_ids_.find(r.name);
      if (it == ref_ids_.end()) d.error(r.at, "E-UNKNOWN-REF", "unknown reference '" + r.name + "'", did_you_mean(r.name, names));
      else ids.push_back(it->second);
    }
    return ids;
  }

  // Units go into two tables: the checking table (m_.units), where each kind is a base dimension of its
  // own, and the image's, where kinds are erased to the dimension they are of.
  void declare_units(const AFile& f) {
    UnitTable& t = m_.units;
    for (const auto& decl : f.decls) {
      if (decl.k == ADecl::K::Dimension) {
        if (dim_at_.count(decl.name)) {
          duplicate(decl.at, "dimension", decl.name, dim_at_[decl.name]);
          continue;
        }
        dim_at_[decl.name] = decl.at;
        img_.units.dimension_names.push_back(decl.name);
        t.dimension_names.push_back(decl.name);
        m_.erased_base.push_back(Dim::base(img_.units.dimension_names.size() - 1));
        m_.kind_base.push_back(false);
      } else if (decl.k == ADecl::K::Kind) {
        declare_kind(decl);
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
        for (UnitTable* table : {&t, &img_.units}) {
          table->prefixes.push_back({decl.name, decl.scale});
          table->index();
        }
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
        UnitDef erased = u;
        erased.dim = m_.erase(u.dim);
        img_.units.units.push_back(std::move(erased));
        img_.units.index();
        t.units.push_back(std::move(u));
        t.index();
      }
    }
  }

  // `kind NAME of UNIT`: a base dimension of the checking table that erases to UNIT's dimension.
  void declare_kind(const ADecl& decl) {
    if (decl.base_dim != "of") {
      d_.error(decl.base_at, "E-KIND", "expected 'of' after the kind's name, found '" + decl.base_dim + "'",
               "write 'kind " + decl.name + " of <dimension>', e.g. 'kind gpu_count of 1'");
      return;
    }
    if (dim_at_.count(decl.name)) {
      duplicate(decl.at, "dimension or kind", decl.name, dim_at_[decl.name]);
      return;
    }
    auto q = check_unit(*decl.unit, m_.units, d_);
    if (!q) return;
    if (q->scale != 1) {
      d_.error(decl.unit->at, "E-KIND", "a kind is of a dimension, but '" + decl.unit->text + "' is a scaled unit",
               "name the dimension by its base unit (or 1 for a count), e.g. 'kind " + decl.name + " of 1'");
      return;
    }
    dim_at_[decl.name] = decl.at;
    m_.units.dimension_names.push_back(decl.name);
    m_.erased_base.push_back(m_.erase(q->dim));
    m_.kind_base.push_back(true);
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
      auto q = check_unit(*decl.unit, m_.units, d_);
      if (q) v.unit = decl.unit->text, v.unit_scale = q->scale, v.dim = m_.erase(q->dim);
      m_.var_dims.push_back(q ? q->dim : Dim{});
      v.refs = resolve_refs(decl.refs, d_);
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


  // Each relation's entry: its full name (system.local), description, citations and span. Its
  // diagnostics go to the entry, to join the model's in declaration order after `lower`.
  void declare_relations(const AFile& f, uint32_t system) {
    for (const auto& decl : f.decls) {
      if (decl.k != ADecl::K::Relation) continue;
      RelationIR ir;
      ir.decl = &decl, ir.system = system;
      Relation& r = ir.rel;
      r.name = f.system + "." + decl.name;
      r.description = decl.description.empty() ? decl.doc : decl.description;
      r.system = system, r.span = span(decl.keyword_at), r.refs = resolve_refs(decl.refs, ir.diags);
      if (auto it = relation_decl_.find(r.name); it != relation_decl_.end()) {
        pass_util::duplicate(ir.diags, decl.at, "relation", decl.name, m_.relations[it->second].decl->at);
        ir.ok = false;
      } else {
        relation_decl_[r.name] = m_.relations.size();
      }
      m_.relations.push_back(std::move(ir));
    }
  }
};

}  // namespace

void declare(Model& m, Diagnostics& diags) { Declarer(m, diags).run(); }

std::string print_declared(const Model& m) {
  const Image& img = m.img;
  std::string s;
  for (uint32_t i = 0; i < img.systems.size(); ++i) {
    s += "system " + img.systems[i].name + " (namespace " + m.namespaces[i] + ")";
    for (size_t k = 0; k < img.systems[i].uses.size(); ++k) s += (k ? ", " : " uses ") + img.systems[img.systems[i].uses[k]].name;
    s += "\n";
  }
  s += "dimensions and kinds: " + pass_util::join_names(m.units.dimension_names) + "\n";
  s += "units: " + std::to_string(img.units.units.size()) + ", prefixes: " + std::to_string(img.units.prefixes.size()) +
       ", references: " + std::to_string(img.refs.size()) + "\n";
  for (uint32_t v = 0; v < img.vars.size(); ++v)
    s += "var #" + std::to_string(v) + " " + img.vars[v].name + " : " + m.units.describe(m.var_dims[v]) +
         (img.vars[v].is_constant ? " (constant)" : "") + " [" + img.systems[img.vars[v].system].name + "]\n";
  for (const auto& r : m.relations)
    s += std::string("relation ") + r.rel.name + " (" + pass_util::head_word(r.decl->head) + ")" + (r.ok ? "" : " error") + "\n";
  return s;
}

}  // namespace gs::compiler
