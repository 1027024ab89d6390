// Double-precision meaning of the postfix expression form, shared by every evaluator.
//
// `postfix_error` is the one structural validator of a postfix program (stack discipline, operator
// arity, function ids, variable ids, finite literals): the image loader, `verify` and the cone
// evaluators (reference interpreter and JIT) all call it. The scalar kernels below define what each
// operator computes in IEEE double precision; the reference interpreter uses them directly and the JIT
// emits the same operations (runtime/jit/jit_llvm.cpp), so the two agree bit for bit on most cones and
// to rounding of the C library otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "image/expr.h"

namespace gs {

struct PostfixRules {
  size_t var_limit = std::numeric_limits<size_t>::max();  // variable ids must be below this
  bool locals_allowed = false;                             // Local slot 0 (iteration maps only)
  bool finite_numbers = true;                              // literals must be finite
};

// What can be wrong with a postfix program, so callers can word it for their audience (the image
// loader reports corruption, `verify` and the evaluators a malformed program).
enum class PostfixFault { None, BadNumber, BadVariable, BadLocal, Underflow, ExtraValues, BadFunction, BadPiecewise, UnknownOp };

struct PostfixCheck {
  PostfixFault fault = PostfixFault::None;
  std::string message;  // what is wrong, in words; empty when well formed
};
PostfixCheck check_postfix(const Expr& e, const PostfixRules& rules);

// check_postfix's message alone.
std::string postfix_error(const Expr& e, const PostfixRules& rules);

// Stack effect of one node: how many operands it pops (it always pushes one value).
size_t postfix_pops(const Node& n);

// Truth values are 1 and 0. Comparisons are ordered (false when either side is NaN) except `!=`, which
// is true then, as in IEEE 754.
double eval_binary(Op op, double a, double b);
// min/max propagate NaN (IEEE 754-2019 minimum/maximum), unlike std::fmin.
double eval_func(Func f, const double* args, size_t n);
// `a ^ b` where the exponent is known before evaluation: 1/2, -1, 1 and 2 become sqrt, a reciprocal,
// the identity and a product, as the JIT emits them.
double eval_pow_known_exponent(double a, double b);

// Evaluates one expression with variables read from `values` by id (NaN past its end) and Local slot 0
// bound to `local`. Throws std::runtime_error on a malformed program.
double eval_reference(const Expr& e, const std::vector<double>& values, double local = 0);

}  // namespace gs
