#include "image/eval.h"

#include <cmath>
#include <stdexcept>

namespace gs {

size_t postfix_pops(const Node& n) {
  switch (n.op) {
    case Op::Num: case Op::Var: case Op::Local: return 0;
    case Op::Neg: case Op::Not: return 1;
    case Op::Call: case Op::Piecewise: return n.count;
    default: return 2;
  }
}

PostfixCheck check_postfix(const Expr& e, const PostfixRules& rules) {
  using F = PostfixFault;
  size_t depth = 0;
  for (const Node& n : e.nodes) {
    switch (n.op) {
      case Op::Num:
        if (rules.finite_numbers && !std::isfinite(n.value)) return {F::BadNumber, "a number that is not finite"};
        break;
      case Op::Var:
        if (n.index >= rules.var_limit) return {F::BadVariable, "variable #" + std::to_string(n.index) + ", which is not registered"};
        break;
      case Op::Local:
        if (!rules.locals_allowed || n.index != 0) return {F::BadLocal, "local slot " + std::to_string(n.index) + " outside an iteration map"};
        break;
      case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Pow:
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      case Op::And: case Op::Or:
        if (depth < 2) return {F::Underflow, "an operator without its two operands"};
        break;
      case Op::Neg: case Op::Not:
        if (depth < 1) return {F::Underflow, "an operator without its operand"};
        break;
      case Op::Call: {
        if (n.index > uint32_t(Func::Log10)) return {F::BadFunction, "function #" + std::to_string(n.index) + ", which does not exist"};
        const FuncInfo& f = func_info(Func(n.index));
        if (long(n.count) < f.min_args || long(n.count) > f.max_args)
          return {F::BadFunction, std::string(f.name) + " called with " + std::to_string(n.count) + " arguments"};
        if (depth < n.count) return {F::Underflow, std::string(f.name) + " without its arguments"};
        break;
      }
      case Op::Piecewise:
        if (n.count < 3 || n.count % 2 == 0) return {F::BadPiecewise, "a piecewise with " + std::to_string(n.count) + " operands"};
        if (depth < n.count) return {F::Underflow, "a piecewise without its operands"};
        break;
      default: return {F::UnknownOp, "unknown operation " + std::to_string(int(n.op))};
    }
    depth = depth - postfix_pops(n) + 1;
  }
  if (!e.nodes.empty() && depth != 1) return {F::ExtraValues, "a program that leaves " + std::to_string(depth) + " values instead of one"};
  return {};
}

std::string postfix_error(const Expr& e, const PostfixRules& rules) { return check_postfix(e, rules).message; }

double eval_binary(Op op, double a, double b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Pow: return std::pow(a, b);
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Gt: return a > b;
    case Op::Ge: return a >= b;
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::And: return a != 0 && b != 0;
    case Op::Or: return a != 0 || b != 0;
    default: throw std::runtime_error("not a binary operator in expression");
  }
}

double eval_pow_known_exponent(double a, double b) {
  if (b == 0.5) return std::sqrt(a);
  if (b == -1) return 1.0 / a;
  if (b == 1) return a;
  if (b == 2) return a * a;
  return std::pow(a, b);
}

namespace {
// IEEE 754-2019 minimum/maximum: NaN wins, and -0 is below +0.
double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
}  // namespace

double eval_func(Func f, const double* a, size_t n) {
  if (n == 0) return NAN;
  const double x = a[0];
  switch (f) {
    case Func::Exp: return std::exp(x);
    case Func::Log: return std::log(x);
    case Func::Sqrt: return std::sqrt(x);
    case Func::Sin: return std::sin(x);
    case Func::Cos: return std::cos(x);
    case Func::Tan: return std::tan(x);
    case Func::Tanh: return std::tanh(x);
    case Func::Atan: return std::atan(x);
    case Func::Abs: return std::fabs(x);
    case Func::Floor: return std::floor(x);
    case Func::Ceil: return std::ceil(x);
    case Func::Log2: return std::log2(x);
    case Func::Log10: return std::log10(x);
    case Func::Min: case Func::Max: {
      double r = x;
      for (size_t i = 1; i < n; ++i) r = f == Func::Min ? minimum(r, a[i]) : maximum(r, a[i]);
      return r;
    }
  }
  throw std::runtime_error("unknown function in expression");
}

double eval_reference(const Expr& e, const std::vector<double>& values, double local) {
  std::vector<double> st;
  st.reserve(e.nodes.size());
  for (const Node& n : e.nodes) {
    const size_t pops = postfix_pops(n);
    if (st.size() < pops) throw std::runtime_error("malformed expression (stack underflow)");
    double* args = st.data() + (st.size() - pops);
    double r = 0;
    switch (n.op) {
      case Op::Num: r = n.value; break;
      case Op::Var: r = n.index < values.size() ? values[n.index] : NAN; break;
      case Op::Local: r = local; break;
      case Op::Neg: r = -args[0]; break;
      case Op::Not: r = args[0] == 0; break;
      case Op::Call: r = eval_func(Func(n.index), args, pops); break;
      case Op::Piecewise: {
        r = args[pops - 1];
        for (size_t i = 0; i + 1 < pops; i += 2)
          if (args[i + 1] != 0) {
            r = args[i];
            break;
          }
        break;
      }
      default: r = eval_binary(n.op, args[0], args[1]);
    }
    st.resize(st.size() - pops);
    st.push_back(r);
  }
  if (st.size() != 1) throw std::runtime_error("malformed expression");
  return st.back();
}

}  // namespace gs
