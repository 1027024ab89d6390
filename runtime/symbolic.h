// The bridge from the image's postfix expressions to GiNaC.
//
// Numbers enter GiNaC as exact rationals (the decimal a double prints as), so chains of products and
// quotients of assigned values stay exact and only the final answer is rounded to a double. Truth
// values are GiNaC relationals while undecided and the integers 1 and 0 once decided; min, max, floor,
// ceil, piecewise and the logical connectives are GiNaC functions that fold as soon as their arguments
// are numbers, and otherwise stay symbolic so a formula in the missing inputs can still be printed.
//
// GiNaC is not thread-safe: everything here must run on one thread.
#pragma once

#include <ginac/ginac.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "image/expr.h"

namespace gs::sym {

// The exact rational a double stands for: integers exactly, other values as their shortest
// round-trip decimal (0.36 -> 9/25). Throws std::domain_error for NaN and infinities.
GiNaC::ex number(double v);

// A rebuilt expression, and whether any symbol (an unknown variable) remained in it.
struct Built {
  GiNaC::ex value;
  bool symbolic = false;
};

// What a variable stands for while rebuilding: its value, or nullopt for "unknown" (the variable's
// symbol is used then).
using VarValue = std::function<std::optional<GiNaC::ex>(uint32_t var)>;

// One symbol per variable, created on first use and remembered both ways.
class Symbols {
 public:
  explicit Symbols(const std::vector<std::string>* names) : names_(names) {}
  const GiNaC::ex& of(uint32_t var);
  std::optional<uint32_t> var_of(const GiNaC::ex& symbol) const;
  // Variables whose symbols occur in an expression, sorted by id.
  std::vector<uint32_t> free_vars(const GiNaC::ex& e) const;

 private:
  const std::vector<std::string>* names_;
  std::map<uint32_t, GiNaC::ex> by_var_;
  std::map<GiNaC::ex, uint32_t, GiNaC::ex_is_less> by_symbol_;
};

// Rebuilds `e`. `locals` holds the values of the local binder slots (iterative relations).
// Constant sub-results that are not rational (sqrt(2), exp(1/2)) are turned into floats so values stay
// numbers. Throws std::runtime_error for a malformed expression and GiNaC's own errors (division by
// zero) unchanged.
Built build(const Expr& e, const VarValue& value, Symbols& symbols, const std::vector<GiNaC::ex>& locals = {});

// The comparison `a op b` (op is one of Lt, Le, Gt, Ge, Eq, Ne), already decided (1 or 0) when it can be.
GiNaC::ex relation(Op op, const GiNaC::ex& a, const GiNaC::ex& b);

// true/false when a truth value can be decided, nullopt while it still depends on unknowns.
std::optional<bool> decide(const GiNaC::ex& condition);

// The value as a double when it is a real number (after numeric evaluation).
std::optional<double> to_double(const GiNaC::ex& e);

bool has_symbols(const GiNaC::ex& e);

// True when the value depends on an undefined operation (a division by an exact zero) that no piecewise
// branch guarded.
// Also true for a value past the range of a double (an overflow), which is evaluated in doubles rather
// than exactly once exact numbers would grow past a few thousand bits.
bool is_undefined(const GiNaC::ex& e);
// Why an undefined value has no number: "division by zero" or an overflow.
std::string undefined_reason(const GiNaC::ex& e);

// Printable form with numbers shown as decimals. The term order is GiNaC's and may differ between runs.
// A formula longer than 200,000 terms written out is replaced by a sentence saying so.
std::string to_string(const GiNaC::ex& e);
// How many terms `e` has written out as a tree (shared subexpressions counted at each use), at most `cap`.
size_t printed_size(const GiNaC::ex& e, size_t cap);

}  // namespace gs::sym
