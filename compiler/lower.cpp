#include "compiler/lower.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "compiler/builtins.h"
#include "image/suggest.h"

namespace gs::compiler {
namespace {

std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Location shifted(Location at, size_t by) {
  at.column += unsigned(by);
  return at;
}

// A constant exponent as a small rational (denominators up to 12 cover every physical law we need).
std::optional<Rational> as_rational(double x) {
  for (int den = 1; den <= 12; ++den) {
    double n = x * den;
    if (std::fabs(n - std::round(n)) < 1e-9 && std::fabs(n) < 1e6) return Rational::make(int64_t(std::llround(n)), den);
  }
  return std::nullopt;
}

class Lowerer {
 public:
  Lowerer(const Scope& s, Diagnostics& d, Expr& out) : s_(s), d_(d), out_(out) {}

  std::optional<Typed> run(const AExpr& e) {
    switch (e.k) {
      case AExpr::K::Num:
        if (!finite_constant(e.number, e.at, "this number")) return std::nullopt;
        out_.nodes.push_back({Op::Num, 0, 0, e.number});
        return Typed{Dim{}, false, e.number};
      case AExpr::K::Quantity: {
        auto q = check_unit(AUnit{e.text, e.unit_at}, *s_.units, d_);
        if (!q) return std::nullopt;
        double v = e.number * q->scale;
        if (!finite_constant(v, e.at, "this quantity in base units")) return std::nullopt;
        out_.nodes.push_back({Op::Num, 0, 0, v});
        return Typed{q->dim, false, v};
      }
      case AExpr::K::Ref: return ref(e);
      case AExpr::K::Neg: {
        auto a = number(e.kids[0]);
        if (!a) return a;
        out_.nodes.push_back({Op::Neg});
        if (a->constant) a->constant = -*a->constant;
        return a;
      }
      case AExpr::K::Not: {
        if (!condition(e.kids[0])) return std::nullopt;
        out_.nodes.push_back({Op::Not});
        return Typed{Dim{}, true, {}};
      }
      case AExpr::K::Binary: return binary(e);
      case AExpr::K::Call: return call(e);
      case AExpr::K::Piecewise: return piecewise(e);
    }
    return std::nullopt;
  }

  // Lowers an operand that must be a number (not a truth value).
  std::optional<Typed> number(const AExpr& e) {
    auto t = run(e);
    if (t && t->boolean) {
      d_.error(e.begin, "E-CONDITION", "expected a number here, but this is a condition",
               "conditions belong in 'when', in piecewise branches, or in a constraint");
      return std::nullopt;
    }
    return t;
  }

  std::optional<Typed> condition(const AExpr& e) {
    auto t = run(e);
    if (t && !t->boolean) {
      d_.error(e.begin, "E-CONDITION", "expected a condition here, but this is a number",
               "compare it with something, e.g. 'x > 0'");
      return std::nullopt;
    }
    return t;
  }

 private:
  const Scope& s_;
  Diagnostics& d_;
  Expr& out_;

  std::string dim(const Dim& d) const { return s_.units->describe(d); }

  // Constant nonsense is a compile error rather than a NaN or infinity in the image: a number past the
  // range of a double (1e999), a division by a constant zero, a root or logarithm of a constant with no
  // real value.
  bool finite_constant(double v, const Location& at, const std::string& what) {
    if (std::isfinite(v)) return true;
    if (std::isnan(v))
      d_.error(at, "E-CONSTANT-VALUE", what + " has no real value", "check the constant operands of this expression");
    else
      d_.error(at, "E-CONSTANT-VALUE", what + " is beyond the range of a double (about 1.8e308)",
               "write the quantity in a larger unit, or check the exponent");
    return false;
  }
  std::optional<Typed> folded(Typed t, const Location& at) {
    if (t.constant && !finite_constant(*t.constant, at, "this constant expression")) return std::nullopt;
    return t;
  }

  std::optional<Typed> ref(const AExpr& e) {
    if (!s_.binder.empty() && e.text == s_.binder) {
      out_.nodes.push_back({Op::Local, 0});
      return Typed{s_.binder_dim, false, {}};
    }
    if (in_math_namespace(e.text)) return math(e);
    auto it = s_.var_ids->find(e.text);
    if (it == s_.var_ids->end()) {
      std::vector<std::string> names;
      for (const auto& [name, id] : *s_.var_ids)
        if (s_.visible(id)) names.push_back(name);
      d_.error(e.at, "E-UNKNOWN-NAME", "unknown name '" + e.text + "'", did_you_mean(e.text, names));
      return std::nullopt;
    }
    if (!s_.visible(it->second)) {
      d_.error(e.at, "E-NOT-VISIBLE",
               "'" + e.text + "' is declared in system '" + s_.owner(it->second) + "', which '" + s_.system + "' does not use",
               "add 'use " + s_.owner(it->second) + "' to system '" + s_.system + "' if it loads earlier");
      return std::nullopt;
    }
    out_.nodes.push_back({Op::Var, it->second});
    return Typed{(*s_.vars)[it->second].dim, false, {}};
  }

  // A built-in constant is a number like any literal: the image holds its value, not a name.
  std::optional<Typed> math(const AExpr& e) {
    auto v = math_constant(e.text);
    if (!v) {
      d_.error(e.at, "E-UNKNOWN-NAME", "unknown math constant '" + e.text + "'",
               did_you_mean(e.text, math_constant_names()));
      return std::nullopt;
    }
    out_.nodes.push_back({Op::Num, 0, 0, *v});
    return Typed{Dim{}, false, *v};
  }

  std::optional<Typed> binary(const AExpr& e) {
    const Op op = e.op;
    if (op == Op::And || op == Op::Or) {
      auto a = condition(e.kids[0]);
      auto b = a ? condition(e.kids[1]) : std::nullopt;
      if (!b) return std::nullopt;
      out_.nodes.push_back({op});
      return Typed{Dim{}, true, {}};
    }
    auto a = number(e.kids[0]);
    if (!a) return std::nullopt;
    auto b = number(e.kids[1]);
    if (!b) return std::nullopt;
    out_.nodes.push_back({op});
    auto fold = [&](double v) { return (a->constant && b->constant) ? std::optional<double>(v) : std::nullopt; };
    const double x = a->constant.value_or(0), y = b->constant.value_or(0);
    switch (op) {
      case Op::Add:
      case Op::Sub:
        if (!(a->dim == b->dim)) {
          d_.error(e.at, "E-UNIT-SUM", std::string("the terms of this ") + (op == Op::Add ? "sum" : "difference") +
                   " have different dimensions: left is " + dim(a->dim) + ", right is " + dim(b->dim),
                   "terms can only be added or subtracted when they measure the same kind of quantity");
          return std::nullopt;
        }
        return folded(Typed{a->dim, false, fold(op == Op::Add ? x + y : x - y)}, e.at);
      case Op::Mul: return folded(Typed{a->dim * b->dim, false, fold(x * y)}, e.at);
      case Op::Div:
        if (b->constant && *b->constant == 0) {
          d_.error(e.at, "E-CONSTANT-VALUE", "division by zero: the divisor is the constant 0",
                   "a divisor that can be zero needs a piecewise guard; a constant one is a mistake");
          return std::nullopt;
        }
        return folded(Typed{a->dim / b->dim, false, fold(x / y)}, e.at);
      case Op::Pow: {
        if (!b->dim.dimensionless()) {
          d_.error(e.kids[1].begin, "E-UNIT-EXPONENT", "an exponent must be dimensionless, but this one is " + dim(b->dim));
          return std::nullopt;
        }
        if (a->constant && *a->constant == 0 && b->constant && *b->constant < 0) {
          d_.error(e.at, "E-CONSTANT-VALUE", "division by zero: the constant 0 raised to a negative power",
                   "check the constant operands of this expression");
          return std::nullopt;
        }
        if (a->dim.dimensionless()) return folded(Typed{Dim{}, false, fold(std::pow(x, y))}, e.at);
        auto r = b->constant ? as_rational(*b->constant) : std::nullopt;
        if (!r) {
          d_.error(e.kids[1].begin, "E-UNIT-EXPONENT",
                   "the base has dimension " + dim(a->dim) + ", so its exponent must be a constant rational number",
                   "a variable exponent is only allowed on a dimensionless base");
          return std::nullopt;
        }
        return folded(Typed{a->dim.pow(*r), false, fold(std::pow(x, y))}, e.at);
      }
      default:  // comparisons
        if (!(a->dim == b->dim)) {
          d_.error(e.at, "E-UNIT-COMPARE", "the two sides of this comparison have different dimensions: left is " +
                   dim(a->dim) + ", right is " + dim(b->dim), "only quantities of the same kind can be compared");
          return std::nullopt;
        }
        return Typed{Dim{}, true, {}};
    }
  }

  std::optional<Typed> call(const AExpr& e) {
    Func f;
    if (!func_by_name(e.text, f)) {
      std::vector<std::string> names = {"exp", "log", "ln", "sqrt", "sin", "cos", "tan", "tanh", "atan", "abs",
                                        "min", "max", "floor", "ceil", "log2", "log10"};
      d_.error(e.at, "E-UNKNOWN-FUNCTION", "unknown function '" + e.text + "'", did_you_mean(e.text, names));
      return std::nullopt;
    }
    const FuncInfo& info = func_info(f);
    const int n = int(e.kids.size());
    if (n < info.min_args || n > info.max_args) {
      d_.error(e.at, "E-ARITY", "'" + e.text + "' takes " +
               (info.min_args == info.max_args ? std::to_string(info.min_args) : "at least " + std::to_string(info.min_args)) +
               " argument" + (info.min_args == 1 && info.max_args == 1 ? "" : "s") + ", not " + std::to_string(n),
               "see the list of functions in docs/language.md, section Expressions");
      return std::nullopt;
    }
    std::vector<Typed> args;
    for (const auto& k : e.kids) {
      auto t = number(k);
      if (!t) return std::nullopt;
      if (info.needs_dimensionless && !t->dim.dimensionless()) {
        d_.error(k.begin, "E-UNIT-ARGUMENT", "the argument of '" + e.text + "' must be dimensionless, but it is " + dim(t->dim),
                 "divide by a reference quantity of the same dimension first");
        return std::nullopt;
      }
      if (!args.empty() && !(t->dim == args[0].dim)) {
        d_.error(k.begin, "E-UNIT-ARGUMENT", "the arguments of '" + e.text + "' have different dimensions: " + dim(args[0].dim) +
                 " and " + dim(t->dim));
        return std::nullopt;
      }
      args.push_back(*t);
    }
    out_.nodes.push_back({Op::Call, uint32_t(f), uint32_t(n)});
    Dim d = args[0].dim;
    if (f == Func::Sqrt) d = d.pow(Rational{1, 2});
    else if (info.needs_dimensionless) d = Dim{};
    if (n == 1 && args[0].constant) {
      const double v = *args[0].constant;
      if ((f == Func::Sqrt && v < 0) || ((f == Func::Log || f == Func::Log2 || f == Func::Log10) && v <= 0)) {
        d_.error(e.at, "E-CONSTANT-VALUE", "'" + e.text + "' of the constant " + fmt_number(v) + " has no real value",
                 f == Func::Sqrt ? "a square root needs a nonnegative argument" : "a logarithm needs a positive argument");
        return std::nullopt;
      }
    }
    return Typed{d, false, {}};
  }

  std::optional<Typed> piecewise(const AExpr& e) {
    std::optional<Dim> d;
    for (size_t i = 0; i < e.kids.size(); ++i) {
      const bool is_cond = i % 2 == 1 && i + 1 < e.kids.size();
      if (is_cond) {
        if (!condition(e.kids[i])) return std::nullopt;
        continue;
      }
      auto t = number(e.kids[i]);
      if (!t) return std::nullopt;
      if (d && !(*d == t->dim)) {
        d_.error(e.kids[i].begin, "E-UNIT-BRANCH", "this piecewise branch is " + dim(t->dim) + ", but the first branch is " + dim(*d),
                 "every branch of a piecewise must measure the same kind of quantity");
        return std::nullopt;
      }
      d = t->dim;
    }
    out_.nodes.push_back({Op::Piecewise, 0, uint32_t(e.kids.size())});
    return Typed{*d, false, {}};
  }
};

}  // namespace

std::optional<Typed> lower_expr(const AExpr& e, const Scope& scope, Diagnostics& diags, Expr& out) {
  try {
    return Lowerer(scope, diags, out).run(e);
  } catch (const std::overflow_error&) {  // from Rational: exponents such as sqrt(sqrt(...)) past 32 bits
    diags.error(e.at, "E-UNIT-EXPONENT", "the dimension of this expression has exponents too large to represent",
                "simplify the powers and roots, or make the base dimensionless first");
    return std::nullopt;
  }
}

std::optional<Quantity> check_unit(const AUnit& u, const UnitTable& units, Diagnostics& diags) {
  std::string err;
  size_t off = 0;
  auto q = units.parse(u.text, &err, &off);
  if (!q) {
    std::string hint;
    if (auto p = err.find("unknown unit '"); p != std::string::npos)
      hint = did_you_mean(err.substr(p + 14, err.size() - p - 15), units.all_names());
    diags.error(shifted(u.at, off), "E-UNIT-UNKNOWN", "bad unit '" + u.text + "': " + err, hint);
  }
  return q;
}

}  // namespace gs::compiler
