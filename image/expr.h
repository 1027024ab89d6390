// The unit-erased expression form carried by the registry image.
//
// An expression is a postfix program: each node pops its operands from a stack and pushes its result.
// The compiler writes it from the checked IR in source order, so the same model always gives the same
// bytes (GiNaC's own archive order depends on run-time hashes). The runtime rebuilds GiNaC expressions
// from it and the JIT reads it too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gs {

enum class Op : uint8_t {
  Num,        // value = number
  Var,        // index = variable id
  Local,      // index = local binder slot (iterative relations)
  Add,        // 2 operands
  Sub,        // 2
  Mul,        // 2
  Div,        // 2
  Pow,        // 2
  Neg,        // 1
  Call,       // index = Func, count = operand count
  Lt, Le, Gt, Ge, Eq, Ne,  // 2 operands, a truth value
  And, Or,    // 2
  Not,        // 1
  Piecewise,  // count = 2k+1 operands: value1 cond1 ... valuek condk otherwise
};

enum class Func : uint8_t { Exp, Log, Sqrt, Sin, Cos, Tan, Tanh, Atan, Abs, Min, Max, Floor, Ceil, Log2, Log10 };

struct FuncInfo {
  const char* name;
  int min_args;
  int max_args;
  bool needs_dimensionless;  // argument must be dimensionless (transcendental functions)
};
const FuncInfo& func_info(Func f);
// An operator's token in .gstack source ("+", "<=", "and"; "neg" and "not" for the unary ones) and its
// binding strength as in grammar/GStack.g4 (a higher number binds tighter), shared by every printer.
const char* op_token(Op op);
int op_precedence(Op op);
bool func_by_name(const std::string& name, Func& out);

struct Node {
  Op op = Op::Num;
  uint32_t index = 0;  // variable id, local slot, function id
  uint32_t count = 0;  // operand count for Call and Piecewise
  double value = 0;    // Num only
  bool operator==(const Node&) const = default;
};

struct Expr {
  std::vector<Node> nodes;  // postfix; empty means "absent"
  bool empty() const { return nodes.empty(); }
  bool operator==(const Expr&) const = default;
};

// Variable ids an expression reads, sorted and unique.
std::vector<uint32_t> expr_variables(const Expr& e);

// Infix rendering for humans, with variables shown by name.
std::string render(const Expr& e, const std::vector<std::string>& var_names);

}  // namespace gs
