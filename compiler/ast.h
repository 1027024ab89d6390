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

struct ADecl {
  enum class K { Dimension, Unit, Prefix, Ref, Var, Const, Relation } k = K::Var;
  std::string name;
  Location at;        // location of the name
  Location keyword_at;
  std::string description, doc;
  // Unit: `unit x : base` (base_dim set) or `unit x = [scale] [unit]`.
  std::string base_dim;
  Location base_at;
  double scale = 1;
  std::optional<AUnit> unit;  // Var, Const, derived Unit
  // Ref fields.
  std::string citation, ref_kind, url, locator;
  int year = 0;
  // Var / Const.
  std::vector<ANameRef> refs;
  std::vector<AAssume> assumptions;
  double value = 0;
  // Relation.
  Head head = Head::Eq;
  std::optional<ANameRef> variant_key;
  std::optional<AExpr> validity;
  enum class Body { Equation, Iterate, Differential, Stochastic, Condition } body = Body::Equation;
  std::optional<AExpr> lhs, rhs, cond;
  std::string binder;
  Location binder_at;
  std::optional<AExpr> initial, count, mean;
  std::optional<ANameRef> target, indep;  // Differential
  unsigned order = 1;
  std::string distribution;
  std::vector<AExpr> dist_params;
};

struct AFile {
  const SourceFile* source = nullptr;
  std::string system;
  std::string system_description, system_doc;
  Location system_at;
  std::vector<ANameRef> uses;
  std::vector<ADecl> decls;
};

// Parses one file; syntax errors go to `diags` and make the result empty.
std::optional<AFile> parse_file(const SourceFile& src, Diagnostics& diags);

}  // namespace gs::compiler
