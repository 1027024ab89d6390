// The checked model the passes hand on: after `declare` it holds the tables (systems, references,
// units, variables) and one entry per relation; `resolve_names` turns each relation's expressions into
// trees of ids, `check_units` gives every node its dimension, `lower` writes the unit-erased postfix
// form into the image, and the last two passes check the image's relations as a whole.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ast.h"
#include "image/image.h"

namespace gs::compiler {

// An expression after resolve_names: names are variable ids, quantities and math constants are numbers
// in base units, calls name their function. check_units fills in dim, boolean and constant.
struct TExpr {
  enum class K { Num, Var, Local, Neg, Not, Binary, Call, Piecewise } k = K::Num;
  Op op = Op::Add;
  uint32_t var = 0;          // Var
  Func func = Func::Exp;     // Call
  double value = 0;          // Num: the value in base units
  bool quantity = false;     // Num written with a unit (its dimension is unit_dim)
  Dim unit_dim;
  const AExpr* src = nullptr;
  std::vector<TExpr> kids;
  // Set by check_units.
  Dim dim;
  bool boolean = false;            // a truth value (comparison, and/or/not)
  std::optional<double> constant;  // known at compile time (literals and their arithmetic)
};

// One relation as it goes through the passes. A pass that reports an error on it sets ok = false and
// the later passes leave it alone; its diagnostics wait in `diags` and join the model's in declaration
// order once the relation passes are done, whichever pass found them.
struct RelationIR {
  const ADecl* decl = nullptr;
  uint32_t system = 0;
  bool ok = true;
  Diagnostics diags;
  Relation rel;  // declare: name, description, system, span, refs; lower: the rest
  // resolve_names: the defined variable (and the independent one of an ode) and every expression.
  int32_t lhs_var = -1, indep_var = -1;
  std::optional<TExpr> lhs, rhs, validity, initial, count, mean, indep;  // a constraint's sides are lhs and rhs
  std::vector<TExpr> params;
};

struct Model {
  std::vector<AFile>* files = nullptr;
  Image img;  // its unit table and variables' dimensions have the kinds erased
  // The checking unit table: the image's dimensions plus one base dimension per `kind`, so that a GPU
  // count and a node count differ until lowering erases both to 1.
  UnitTable units;
  std::vector<Dim> erased_base;  // per base dimension of `units`: what it is in the image's table
  std::vector<bool> kind_base;   // per base dimension of `units`: a kind
  std::vector<Dim> var_dims;     // per variable: its dimension in `units` (img.vars[v].dim is erased)
  std::map<const SourceFile*, uint32_t> file_ids;
  std::map<std::string, uint32_t> system_ids, ref_ids, var_ids, relation_ids;
  std::map<std::string, Location> unit_at, dim_at, prefix_at, ref_at;
  std::vector<std::set<uint32_t>> visible_systems;  // per system: itself and everything it uses, transitively
  std::vector<std::string> namespaces;              // per system: the prefix its variables carry
  std::map<std::string, uint32_t> namespace_owner;  // namespace -> system
  std::vector<bool> foreign_systems;                // per system: exempt from the namespace rule as a whole
  std::map<uint32_t, Location> var_at;
  std::map<std::string, uint32_t> symbol_ids;  // symbol -> variable
  std::map<uint32_t, Location> symbol_at;
  std::vector<RelationIR> relations;           // every relation declaration, in declaration order
  std::map<uint32_t, Location> relation_at;    // image relation id -> where it is declared
  struct FallbackRef {
    ANameRef target;
    std::string system;  // a target written without a system is in the approximation's own
  };
  std::map<uint32_t, FallbackRef> fallback_refs;  // image relation id of an approximation -> its fallback
  bool acyclic = true;                            // check_cycles found no cycle among the identities

  // A checking dimension in the image's terms: every kind replaced by the dimension it is of.
  Dim erase(const Dim& d) const {
    Dim out;
    for (size_t i = 0; i < d.exps.size() && i < erased_base.size(); ++i)
      if (!d.exps[i].is_zero()) out = out * erased_base[i].pow(d.exps[i]);
    out.trim();
    return out;
  }
  // Has `d` no kind in it (a plain dimension, or a plain number)?
  bool kind_free(const Dim& d) const {
    for (size_t i = 0; i < d.exps.size() && i < kind_base.size(); ++i)
      if (kind_base[i] && !d.exps[i].is_zero()) return false;
    return true;
  }

  Span span(const Location& at) const {
    auto it = file_ids.find(at.file);
    return {it == file_ids.end() ? 0u : it->second, at.line, at.column};
  }
  // May a relation of `system` read variable `var`?
  bool visible(uint32_t system, uint32_t var) const { return visible_systems[system].count(img.vars[var].system) > 0; }
  const std::string& owner(uint32_t var) const { return img.systems[img.vars[var].system].name; }
};

}  // namespace gs::compiler
