// Pass `check_units`: the unit checker. Infers the dimension of every node of a resolved relation, tells
// numbers from conditions, folds constants (a constant with no real value or past the range of a double
// is E-CONSTANT-VALUE) and checks each relation's sides against the variable it defines.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "compiler/passes/passes.h"

namespace gs::compiler {
namespace {

std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A constant exponent as a small rational (denominators up to 12 cover every physical law we need).
std::optional<Rational> as_rational(double x) {
  for (int den = 1; den <= 12; ++den) {
    double n = x * den;
    if (std::fabs(n - std::round(n)) < 1e-9 && std::fabs(n) < 1e6) return Rational::make(int64_t(std::llround(n)), den);
  }
  return std::nullopt;
}

struct Typed {
  Dim dim;
  bool boolean = false;
  std::optional<double> constant;
};

class Typer {
 public:
  Typer(const Model& m, Diagnostics& d) : m_(m), d_(d) {}
  Dim binder_dim;  // iterative relations: the dimension of the local variable

  // The type of a whole expression (a number or a condition), recorded on every node.
  std::optional<Typed> top(TExpr& e) {
    try {
      return run(e);
    } catch (const std::overflow_error&) {  // from Rational: exponents such as sqrt(sqrt(...)) past 32 bits
      d_.error(e.src->at, "E-UNIT-EXPONENT", "the dimension of this expression has exponents too large to represent",
               "simplify the powers and roots, or make the base dimensionless first");
      return std::nullopt;
    }
  }

 private:
  const Model& m_;
  Diagnostics& d_;

  std::string dim(const Dim& d) const { return m_.units.describe(d); }

  // Two dimensions that may meet in a sum, a comparison, a branch or min/max: the same, or the same once
  // kinds are erased with one side kind-free (a plain number takes the other side's kind). Two different
  // kinds are E-KIND-MISMATCH.
  enum class Fit { Same, Kinds, Dims };
  Fit fit(const Dim& a, const Dim& b) const {
    if (a == b) return Fit::Same;
    if (!(m_.erase(a) == m_.erase(b))) return Fit::Dims;
    return m_.kind_free(a) || m_.kind_free(b) ? Fit::Same : Fit::Kinds;
  }
  Dim join(const Dim& a, const Dim& b) const { return m_.kind_free(a) ? b : a; }
  void kinds_differ(const Location& at, const std::string& what, const Dim& a, const Dim& b) {
    d_.error(at, "E-KIND-MISMATCH", what + " are different kinds of quantity: left is " + dim(a) + ", right is " + dim(b),
             "both are " + dim(m_.erase(a)) + " once kinds are erased, but they count different things; convert one with a ratio in " +
                 dim(a / b));
  }

  std::optional<Typed> run(TExpr& e) {
    auto t = node(e);
    if (t) e.dim = t->dim, e.boolean = t->boolean, e.constant = t->constant;
    return t;
  }

  std::optional<Typed> node(TExpr& e) {
    const AExpr& src = *e.src;
    switch (e.k) {
      case TExpr::K::Num:
        if (!finite_constant(e.value, src.at, e.quantity ? "this quantity in base units" : "this number")) return std::nullopt;
        return Typed{e.quantity ? e.unit_dim : Dim{}, false, e.value};
      case TExpr::K::Var: return Typed{m_.var_dims[e.var], false, {}};
      case TExpr::K::Local: return Typed{binder_dim, false, {}};
      case TExpr::K::Neg: {
        auto a = number(e.kids[0]);
        if (a && a->constant) a->constant = -*a->constant;
        return a;
      }
      case TExpr::K::Not:
        if (!condition(e.kids[0])) return std::nullopt;
        return Typed{Dim{}, true, {}};
      case TExpr::K::Binary: return binary(e);
      case TExpr::K::Call: return call(e);
      case TExpr::K::Piecewise: return piecewise(e);
    }
    return std::nullopt;
  }

  // An operand that must be a number (not a truth value).
  std::optional<Typed> number(TExpr& e) {
    auto t = run(e);
    if (t && t->boolean) {
      d_.error(e.src->begin, "E-CONDITION", "expected a number here, but this is a condition",
               "conditions belong in 'when', in piecewise branches, or in a constraint");
      return std::nullopt;
    }
    return t;
  }

  std::optional<Typed> condition(TExpr& e) {
    auto t = run(e);
    if (t && !t->boolean) {
      d_.error(e.src->begin, "E-CONDITION", "expected a condition here, but this is a number", "compare it with something, e.g. 'x > 0'");
      return std::nullopt;
    }
    return t;
  }

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

  std::optional<Typed> binary(TExpr& te) {
    const AExpr& e = *te.src;
    const Op op = te.op;
    if (op == Op::And || op == Op::Or) {
      auto a = condition(te.kids[0]);
      auto b = a ? condition(te.kids[1]) : std::nullopt;
      if (!b) return std::nullopt;
      return Typed{Dim{}, true, {}};
    }
    auto a = number(te.kids[0]);
    if (!a) return std::nullopt;
    auto b = number(te.kids[1]);
    if (!b) return std::nullopt;
    auto fold = [&](double v) { return (a->constant && b->constant) ? std::optional<double>(v) : std::nullopt; };
    const double x = a->constant.value_or(0), y = b->constant.value_or(0);
    switch (op) {
      case Op::Add:
      case Op::Sub:
        if (fit(a->dim, b->dim) == Fit::Kinds) {
          kinds_differ(e.at, std::string("the terms of this ") + (op == Op::Add ? "sum" : "difference"), a->dim, b->dim);
          return std::nullopt;
        }
        if (fit(a->dim, b->dim) == Fit::Dims) {
          d_.error(e.at, "E-UNIT-SUM", std::string("the terms of this ") + (op == Op::Add ? "sum" : "difference") +
                   " have different dimensions: left is " + dim(a->dim) + ", right is " + dim(b->dim),
                   "terms can only be added or subtracted when they measure the same kind of quantity");
          return std::nullopt;
        }
        return folded(Typed{join(a->dim, b->dim), false, fold(op == Op::Add ? x + y : x - y)}, e.at);
      case Op::Mul: return folded(Typed{a->dim * b->dim, false, fold(x * y)}, e.at);
      case Op::Div:
        if (b->constant && *b->constant == 0) {
          d_.error(e.at, "E-CONSTANT-VALUE", "division by zero: the divisor is the constant 0",
                   "a divisor that can be zero needs a piecewise guard; a constant one is a mistake");
          return std::nullopt;
        }
        return folded(Typed{a->dim / b->dim, false, fold(x / y)}, e.at);
      case Op::Pow: {
        if (!m_.erase(b->dim).dimensionless()) {
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
        if (!r && m_.erase(a->dim).dimensionless())  // a count to a variable power is a plain number
          return folded(Typed{Dim{}, false, fold(std::pow(x, y))}, e.at);
        if (!r) {
          d_.error(e.kids[1].begin, "E-UNIT-EXPONENT",
                   "the base has dimension " + dim(a->dim) + ", so its exponent must be a constant rational number",
                   "a variable exponent is only allowed on a dimensionless base");
          return std::nullopt;
        }
        return folded(Typed{a->dim.pow(*r), false, fold(std::pow(x, y))}, e.at);
      }
      default:  // comparisons
        if (fit(a->dim, b->dim) == Fit::Kinds) {
          kinds_differ(e.at, "the two sides of this comparison", a->dim, b->dim);
          return std::nullopt;
        }
        if (fit(a->dim, b->dim) == Fit::Dims) {
          d_.error(e.at, "E-UNIT-COMPARE", "the two sides of this comparison have different dimensions: left is " +
                   dim(a->dim) + ", right is " + dim(b->dim), "only quantities of the same kind can be compared");
          return std::nullopt;
        }
        return Typed{Dim{}, true, {}};
    }
  }

  std::optional<Typed> call(TExpr& te) {
    const AExpr& e = *te.src;
    const Func f = te.func;
    const FuncInfo& info = func_info(f);
    std::vector<Typed> args;
    for (auto& k : te.kids) {
      auto t = number(k);
      if (!t) return std::nullopt;
      if (info.needs_dimensionless && !m_.erase(t->dim).dimensionless()) {
        d_.error(k.src->begin, "E-UNIT-ARGUMENT", "the argument of '" + e.text + "' must be dimensionless, but it is " + dim(t->dim),
                 "divide by a reference quantity of the same dimension first");
        return std::nullopt;
      }
      if (!args.empty() && fit(args[0].dim, t->dim) == Fit::Kinds) {
        kinds_differ(k.src->begin, "the arguments of '" + e.text + "'", args[0].dim, t->dim);
        return std::nullopt;
      }
      if (!args.empty() && fit(args[0].dim, t->dim) == Fit::Dims) {
        d_.error(k.src->begin, "E-UNIT-ARGUMENT", "the arguments of '" + e.text + "' have different dimensions: " + dim(args[0].dim) +
                 " and " + dim(t->dim));
        return std::nullopt;
      }
      if (!args.empty()) t->dim = join(args[0].dim, t->dim);
      args.push_back(*t);
    }
    Dim d = args.back().dim;
    if (f == Func::Sqrt) d = d.pow(Rational{1, 2});
    else if (info.needs_dimensionless) d = Dim{};
    if (te.kids.size() == 1 && args[0].constant) {
      const double v = *args[0].constant;
      if ((f == Func::Sqrt && v < 0) || ((f == Func::Log || f == Func::Log2 || f == Func::Log10) && v <= 0)) {
        d_.error(e.at, "E-CONSTANT-VALUE", "'" + e.text + "' of the constant " + fmt_number(v) + " has no real value",
                 f == Func::Sqrt ? "a square root needs a nonnegative argument" : "a logarithm needs a positive argument");
        return std::nullopt;
      }
    }
    return Typed{d, false, {}};
  }

  std::optional<Typed> piecewise(TExpr& e) {
    std::optional<Dim> d;
    for (size_t i = 0; i < e.kids.size(); ++i) {
      const bool is_cond = i % 2 == 1 && i + 1 < e.kids.size();
      if (is_cond) {
        if (!condition(e.kids[i])) return std::nullopt;
        continue;
      }
      auto t = number(e.kids[i]);
      if (!t) return std::nullopt;
      if (d && fit(*d, t->dim) == Fit::Kinds) {
        kinds_differ(e.kids[i].src->begin, "this piecewise branch and the first", *d, t->dim);
        return std::nullopt;
      }
      if (d && fit(*d, t->dim) == Fit::Dims) {
        d_.error(e.kids[i].src->begin, "E-UNIT-BRANCH", "this piecewise branch is " + dim(t->dim) + ", but the first branch is " + dim(*d),
                 "every branch of a piecewise must measure the same kind of quantity");
        return std::nullopt;
      }
      d = d ? join(*d, t->dim) : t->dim;
    }
    return Typed{*d, false, {}};
  }
};

class RelationChecker {
 public:
  RelationChecker(const Model& m, RelationIR& r) : m_(m), r_(r), decl_(*r.decl), d_(r.diags), x_(m, r.diags) {}

  bool run() {
    const std::string sides = "the two sides of '" + decl_.name + "' have different dimensions";
    switch (decl_.head) {
      case Head::Constraint: {
        const AExpr& c = *decl_.cond;
        auto a = x_.top(*r_.lhs);
        auto b = a ? x_.top(*r_.rhs) : std::nullopt;
        if (!b) return false;
        if (a->boolean || b->boolean) {
          d_.error(c.at, "E-CONDITION", "the sides of constraint '" + decl_.name + "' must be numbers, not conditions",
                   "write one inequality per constraint");
          return false;
        }
        return same_dim(a->dim, b->dim, c.at, sides);
      }
      case Head::Ode: {
        auto rhs = x_.top(*r_.rhs);
        if (!rhs) return false;
        Dim expected;
        try {
          const Dim t = r_.indep->k == TExpr::K::Var ? var_dim(r_.indep_var) : Dim{};
          expected = var_dim(r_.lhs_var) / t.pow(Rational::make(decl_.order, 1));
        } catch (const std::overflow_error&) {  // an absurd order overflows the exponents
          d_.error(decl_.at, "E-UNIT-EXPONENT", "the order of the derivative in '" + decl_.name + "' is too large");
          return false;
        }
        return same_dim(expected, rhs->dim, decl_.rhs->begin, sides);
      }
      default: break;
    }
    const Dim target = var_dim(r_.lhs_var);
    if (decl_.head == Head::Iterate) {
      auto init = x_.top(*r_.initial);
      auto count = init ? x_.top(*r_.count) : std::nullopt;
      if (!count) return false;
      if (!same_dim(target, init->dim, decl_.initial->begin, "the initial value of '" + decl_.name + "' has the wrong dimension")) return false;
      if (!m_.erase(count->dim).dimensionless()) {
        d_.error(decl_.count->begin, "E-UNIT-MISMATCH", "the iteration count of '" + decl_.name + "' must be dimensionless",
                 "the count after 'times' is a pure number of steps");
        return false;
      }
      x_.binder_dim = target;
    } else if (decl_.head == Head::Stochastic) {
      for (auto& p : r_.params)
        if (!x_.top(p)) return false;
      if (!r_.mean) return true;
      auto m = x_.top(*r_.mean);
      return m && same_dim(target, m->dim, decl_.mean->begin, "the mean of '" + decl_.name + "' has the wrong dimension");
    } else if (r_.validity) {
      auto v = x_.top(*r_.validity);
      if (!v) return false;
      if (!v->boolean) {
        d_.error(decl_.validity->begin, "E-VALIDITY", "the validity of '" + decl_.name + "' is not a condition",
                 "write a comparison, e.g. 'when x < 1'");
        return false;
      }
    }
    auto rhs = x_.top(*r_.rhs);
    if (!rhs) return false;
    if (rhs->boolean) {
      d_.error(decl_.rhs->begin, "E-CONDITION", "the right side of '" + decl_.name + "' is a condition, not a value",
               "to pick a value by a condition, use piecewise { a if cond; b otherwise }");
      return false;
    }
    return same_dim(target, rhs->dim, decl_.rhs->begin, sides);
  }

 private:
  const Model& m_;
  RelationIR& r_;
  const ADecl& decl_;
  Diagnostics& d_;
  Typer x_;

  const Dim& var_dim(int32_t v) const { return m_.var_dims[size_t(v)]; }

  // The side a relation's variable (or derivative) needs, `a`, against what the right side gives, `b`:
  // the same dimension, and the same kind unless one of them has none.
  bool same_dim(const Dim& a, const Dim& b, const Location& at, const std::string& what) {
    if (a == b) return true;
    const UnitTable& u = m_.units;
    if (m_.erase(a) == m_.erase(b)) {
      if (m_.kind_free(a) || m_.kind_free(b)) return true;
      d_.error(at, "E-KIND-MISMATCH",
               decl_.head == Head::Constraint
                   ? "the two sides of constraint '" + decl_.name + "' are different kinds of quantity: left is " + u.describe(a) + ", right is " + u.describe(b)
                   : "'" + decl_.name + "' needs " + u.describe(a) + " here, but this is " + u.describe(b) + ", a different kind of quantity",
               "both are " + u.describe(m_.erase(a)) + " once kinds are erased, but they count different things; the right side lacks a factor of " +
                   u.describe(a / b));
      return false;
    }
    d_.error(at, "E-UNIT-MISMATCH", what + ": left is " + u.describe(a) + ", right is " + u.describe(b),
             "the right side lacks a factor with dimension " + u.describe(a / b));
    return false;
  }
};

}  // namespace

void check_units(Model& m, Diagnostics&) {
  for (auto& r : m.relations)
    if (r.ok) r.ok = RelationChecker(m, r).run();
}

std::string print_typed(const Model& m) {
  const UnitTable& u = m.units;
  return pass_util::print_relations(m, [&](const RelationIR& r, std::string& s) {
    auto show = [&](const char* what, const std::optional<TExpr>& e) {
      if (e) s += std::string(" ") + what + " " + (e->boolean ? "condition" : u.describe(e->dim));
    };
    if (r.lhs_var >= 0) s += ": " + m.img.vars[size_t(r.lhs_var)].name + " [" + u.describe(m.var_dims[size_t(r.lhs_var)]) + "]";
    if (r.decl->head == Head::Constraint) show("left", r.lhs);
    show("when", r.validity);
    show("initial", r.initial);
    show("mean", r.mean);
    show(r.decl->head == Head::Constraint ? "right" : "=", r.rhs);
  });
}

}  // namespace gs::compiler
