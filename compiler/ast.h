// The abstract syntax tree the parser produces: plain structs with source locations, independent of
// ANTLR so that later passes never see parse-tree types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "image/expr.h"

namespace gs::compiler {

struct AExpr {
  enum class K { Num, Quantity, Ref, Neg, Binary, Call, Piecewise, Not } k = K::Num;
  Op op = Op::Add;       // Binary: Add Sub Mul Div Pow Lt Le Gt Ge Eq Ne And Or
  double number = 0;     // Num and Quantity
  std::string text;      // Ref: variable name; Call: function name; Quantity: unit text
  Location at;           // where a caret explains this node best: the operator of a binary node
  Location begin;        // first character of the whole expression
  Location unit_at;      // Quantity: first character of the unit text
  std::vector<AExpr> kids;  // Piecewise: value, cond, value, cond, ..., otherwise
};

struct AUnit {
  std::string text;  // the unit expression exactly as written
  Location at;
};

struct AAssume {
  std::string name;
  std::optional<double> lo, hi;
  Location at;
};

struct ANameRef {
  std::string name;
  Location at;
};

enum class Head { Eq, Variant, Approx, Constraint, Iterate, Ode, Stochastic };

struct ATemplateArg;

struct ADecl {
  enum class K { Dimension, Kind, Unit, Prefix, Ref, Var, Const, Relation, Export, Template, Instance } k = K::Var;
  std::string name;
  Location at;        // location of the name
  Location keyword_at;
  std::string description, doc;
  // Unit: `unit x : base` (base_dim set: a dimension or a kind) or `unit x = [scale] [unit]`.
  // Kind: `kind x of unit`; base_dim holds the word written where `of` belongs (checked by declare).
  std::string base_dim;
  Location base_at;
  double scale = 1;
  std::optional<AUnit> unit;  // Var, Const, derived Unit, Kind (its dimension)
  // Ref fields.
  std::string citation, ref_kind, url, locator;
  int year = 0;
  // Var / Const.
  std::vector<ANameRef> refs;
  std::vector<AAssume> assumptions;
  // Var: `foreign "reason"` keeps the variable outside its system's namespace (reason empty: no clause).
  std::string foreign_reason;
  Location foreign_at;
  // Var / Const: `symbol "η_gemm"`, the short math name (symbol_at unset: no clause).
  std::string symbol;
  Location symbol_at;
  double value = 0;
  // Relation.
  Head head = Head::Eq;
  std::optional<ANameRef> variant_key;
  std::optional<AExpr> validity;
  // Approx: `fallback NAME`, the relation used where this one's validity fails or it cannot be evaluated.
  std::optional<ANameRef> fallback;
  enum class Body { Equation, Iterate, Differential, Stochastic, Condition } body = Body::Equation;
  std::optional<AExpr> lhs, rhs, cond;
  std::string binder;
  Location binder_at;
  std::optional<AExpr> initial, count, mean;
  std::optional<ANameRef> target, indep;  // Differential
  unsigned order = 1;
  std::string distribution;
  std::vector<AExpr> dist_params;
  // Export: `export role [label =] target "description"`.
  std::string export_role, export_label;
  std::optional<ANameRef> export_target;
  // Template: parameters and the declarations it stamps out (vars and relations).
  std::vector<ANameRef> params;
  std::vector<ADecl> members;
  // Instance: the template used and the arguments given.
  std::optional<ANameRef> template_name;
  std::vector<ATemplateArg> args;
  // Set on what an instance stamped out: the instance, so diagnostics can say which one.
  std::string from_instance;
  Location from_instance_at;
};

// One `param: value` of an instance: an expression, or a string for descriptions.
struct ATemplateArg {
  ANameRef param;
  std::optional<AExpr> value;
  std::optional<std::string> text;
};

struct AFile {
  const SourceFile* source = nullptr;
  std::string system;
  std::string prefix;  // `system economics prefix econ`: the namespace, when it is not the system's name
  Location prefix_at;
  std::string foreign_reason;  // `system t foreign "reason"`: its variables may use any namespace
  Location foreign_at;
  std::string system_description, system_doc;
  Location system_at;
  std::vector<ANameRef> uses;
  std::vector<ADecl> decls;
};

// Parses one file; syntax errors go to `diags` and make the result empty.
std::optional<AFile> parse_file(const SourceFile& src, Diagnostics& diags);

}  // namespace gs::compiler
