// The unit checker and lowering of one expression: infers the dimension of every node, reports
// mismatches, and appends the unit-erased postfix form (quantities converted to base units).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "compiler/ast.h"
#include "image/image.h"

namespace gs::compiler {

struct Typed {
  Dim dim;
  bool boolean = false;             // a truth value (comparison, and/or/not)
  std::optional<double> constant;   // known at compile time (literals and their arithmetic)
};

struct Scope {
  const std::vector<Variable>* vars = nullptr;
  const std::map<std::string, uint32_t>* var_ids = nullptr;
  std::function<bool(uint32_t)> visible;           // may this system read the variable?
  std::function<std::string(uint32_t)> owner;      // system that declares a variable
  const UnitTable* units = nullptr;
  std::string system;                               // the system being compiled
  std::string binder;                               // iterative relations: the local variable
  Dim binder_dim;
};

std::optional<Typed> lower_expr(const AExpr& e, const Scope& scope, Diagnostics& diags, Expr& out);

// Parses a unit written in a declaration, reporting unknown units with a suggestion.
std::optional<Quantity> check_unit(const AUnit& u, const UnitTable& units, Diagnostics& diags);

}  // namespace gs::compiler
