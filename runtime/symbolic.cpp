#include "runtime/symbolic.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include <cln/float.h>
#include <fmt/format.h>

namespace gs::sym {

using GiNaC::ex;
using GiNaC::numeric;

namespace {

// The value of an expression as a real GiNaC number, evaluating constant expressions numerically.
std::optional<numeric> real_value(const ex& e) {
  if (GiNaC::is_a<numeric>(e)) {
    const numeric& n = GiNaC::ex_to<numeric>(e);
    return n.is_real() ? std::optional<numeric>(n) : std::nullopt;
  }
  if (has_symbols(e)) return std::nullopt;
  ex f = e.evalf();
  if (!GiNaC::is_a<numeric>(f) || !GiNaC::ex_to<numeric>(f).is_real()) return std::nullopt;
  return GiNaC::ex_to<numeric>(f);
}

numeric floor_of(const numeric& x) {
  if (!x.is_rational()) return numeric(std::floor(x.to_double()));
  const numeric n = x.numer(), d = x.denom();
  numeric q = GiNaC::iquo(n, d);  // truncates toward zero
  if (n.is_negative() && !GiNaC::irem(n, d).is_zero()) q = q - numeric(1);
  return q;
}

ex truth(bool b) { return numeric(b ? 1 : 0); }

bool is_exact_zero(const ex& e) { return GiNaC::is_a<numeric>(e) && GiNaC::ex_to<numeric>(e).is_zero(); }
bool is_negative_number(const ex& e) { return GiNaC::is_a<numeric>(e) && GiNaC::ex_to<numeric>(e).is_negative(); }

// Stands for the value of an undefined operation (1/0). It is a symbol of no variable, so an answer that
// depends on it is reported as not a number rather than silently given a value.
const ex& undefined() {
  static const ex u = GiNaC::symbol("undefined");
  return u;
}

// Stands for a value beyond the range of a double. Like `undefined`, it may sit in an untaken branch.
const ex& overflowed() {
  static const ex u = GiNaC::symbol("overflow");
  return u;
}

// Exact rationals are kept while their numerator and denominator fit this many bits; a double's range
// ends near 2^1024, so this keeps every representable value exact while bounding the cost of one
// operation (a power with a huge exponent would otherwise build a number of gigabytes: 2^(2^31)).
constexpr long kMaxExactBits = 4096;

long bit_size(const numeric& n) {
  if (!n.is_rational()) return 0;
  return std::max(GiNaC::numer(n).int_length(), GiNaC::denom(n).int_length());
}

// A real number as a double: ±inf past the double range (CLN reports that as an exception), 0 below it.
double as_double(const numeric& n) {
  try {
    return n.to_double();
  } catch (const cln::floating_point_overflow_exception&) {
    return n.is_negative() ? -HUGE_VAL : HUGE_VAL;
  } catch (const cln::floating_point_underflow_exception&) {
    return 0.0;
  }
}

// A double result back into the expression: `overflow` when it left the range, `undefined` when it is
// not a real number (a negative base to a fractional power). CLN's floats have no subnormal numbers (it
// signals an underflow for one), so a subnormal result (below 2.2e-308, as 0.75^2470 = 2.5e-309 is)
// enters as the exact binary fraction it is, m / 2^1074, and stays equal to the doubles the JIT computes.
ex from_double(double v) {
  if (std::isnan(v)) return undefined();
  if (!std::isfinite(v)) return overflowed();
  if (std::fpclassify(v) == FP_SUBNORMAL)
    return numeric(static_cast<long>(std::ldexp(v, 1074))) / numeric(2).power(numeric(1074));
  return numeric(v);
}

// Keeps a numeric result within kMaxExactBits: a larger exact rational continues as a double.
ex bounded(const ex& r) {
  if (!GiNaC::is_a<numeric>(r)) return r;
  const numeric& n = GiNaC::ex_to<numeric>(r);
  if (!n.is_real()) return r;
  if (!n.is_rational()) return std::isfinite(as_double(n)) ? r : overflowed();
  return bit_size(n) <= kMaxExactBits ? r : from_double(as_double(n));
}

// a^b. Exactly when the result's size is bounded (|b| * bits(a) <= kMaxExactBits); in doubles otherwise,
// so `2^(2^31)` is an overflow at once rather than a 256 MB integer.
ex power(const ex& a, const ex& b) {
  if (is_exact_zero(a) && is_negative_number(b)) return undefined();
  if (!GiNaC::is_a<numeric>(a) || !GiNaC::is_a<numeric>(b)) return GiNaC::pow(a, b);
  const numeric &x = GiNaC::ex_to<numeric>(a), &y = GiNaC::ex_to<numeric>(b);
  if (!x.is_real() || !y.is_real()) return GiNaC::pow(a, b);
  const double dy = as_double(y);
  if (x.is_rational() && y.is_rational() && std::fabs(dy) * double(std::max<long>(bit_size(x), 1)) <= double(kMaxExactBits))
    return bounded(GiNaC::pow(a, b));
  return from_double(std::pow(as_double(x), dy));
}

// One arithmetic step on numbers. CLN signals a float result past its range by an exception; that is
// an overflow of this value, not an error of the model. A float result below the smallest normal double
// (CLN signals an underflow) is zero, as `as_double` reads such a number: it is smaller than 2.2e-308.
template <class F>
ex arithmetic(F f) {
  try {
    return bounded(f());
  } catch (const cln::floating_point_overflow_exception&) {
    return overflowed();
  } catch (const cln::floating_point_underflow_exception&) {
    return numeric(0.0);
  }
}

}  // namespace

// GiNaC functions for the operations GiNaC lacks. Each folds to a number as soon as its arguments allow
// and is held (kept symbolic) otherwise; numeric evaluation runs the same rule on evaluated arguments.
DECLARE_FUNCTION_2P(gs_min)
DECLARE_FUNCTION_2P(gs_max)
DECLARE_FUNCTION_1P(gs_floor)
DECLARE_FUNCTION_1P(gs_ceil)
DECLARE_FUNCTION_3P(gs_if)
DECLARE_FUNCTION_2P(gs_and)
DECLARE_FUNCTION_2P(gs_or)
DECLARE_FUNCTION_1P(gs_not)

namespace {

ex min_eval(const ex& a, const ex& b) {
  auto x = real_value(a), y = real_value(b);
  if (x && y) return *x <= *y ? a : b;  // keep the exact argument, not its float
  return gs_min(a, b).hold();
}

ex max_eval(const ex& a, const ex& b) {
  auto x = real_value(a), y = real_value(b);
  if (x && y) return *x >= *y ? a : b;
  return gs_max(a, b).hold();
}

ex floor_eval(const ex& a) {
  if (auto x = real_value(a)) return floor_of(*x);
  return gs_floor(a).hold();
}

ex ceil_eval(const ex& a) {
  if (auto x = real_value(a)) return -floor_of(-*x);
  return gs_ceil(a).hold();
}

ex if_eval(const ex& cond, const ex& then, const ex& otherwise) {
  if (auto d = decide(cond)) return *d ? then : otherwise;
  if (then.is_equal(otherwise)) return then;
  return gs_if(cond, then, otherwise).hold();
}

ex and_eval(const ex& p, const ex& q) {
  auto a = decide(p), b = decide(q);
  if ((a && !*a) || (b && !*b)) return truth(false);
  if (a && b) return truth(true);
  if (a) return q;
  if (b) return p;
  return gs_and(p, q).hold();
}

ex or_eval(const ex& p, const ex& q) {
  auto a = decide(p), b = decide(q);
  if ((a && *a) || (b && *b)) return truth(true);
  if (a && b) return truth(false);
  if (a) return q;
  if (b) return p;
  return gs_or(p, q).hold();
}

ex not_eval(const ex& p) {
  if (auto a = decide(p)) return truth(!*a);
  return gs_not(p).hold();
}

}  // namespace

REGISTER_FUNCTION(gs_min, eval_func(min_eval).evalf_func(min_eval).set_name("min"))
REGISTER_FUNCTION(gs_max, eval_func(max_eval).evalf_func(max_eval).set_name("max"))
REGISTER_FUNCTION(gs_floor, eval_func(floor_eval).evalf_func(floor_eval).set_name("floor"))
REGISTER_FUNCTION(gs_ceil, eval_func(ceil_eval).evalf_func(ceil_eval).set_name("ceil"))
REGISTER_FUNCTION(gs_if, eval_func(if_eval).evalf_func(if_eval).set_name("if"))
REGISTER_FUNCTION(gs_and, eval_func(and_eval).evalf_func(and_eval).set_name("and"))
REGISTER_FUNCTION(gs_or, eval_func(or_eval).evalf_func(or_eval).set_name("or"))
REGISTER_FUNCTION(gs_not, eval_func(not_eval).evalf_func(not_eval).set_name("not"))

ex number(double v) {
  if (!std::isfinite(v)) throw std::domain_error("a number is not finite");
  if (v == std::trunc(v) && std::fabs(v) < 9.0e18) return numeric(static_cast<long>(v));
  // The shortest decimal that reads back as v, in scientific form so the digits (at most 17) fit a
  // 64-bit integer: an optional sign, digits with one point, 'e' and the exponent.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  if (ec != std::errc{}) throw std::domain_error("cannot print a number");
  long long mantissa = 0;
  int exponent = 0;
  bool negative = false, after_point = false;
  for (const char* p = buf; p != end; ++p) {
    if (*p == '-') {
      negative = true;
    } else if (*p == '.') {
      after_point = true;
    } else if (*p == 'e') {
      int e = 0;
      const char* first = p + 1 + (p[1] == '+');
      if (std::from_chars(first, end, e).ec != std::errc{}) throw std::domain_error("cannot read a printed number");
      exponent += e;
      break;
    } else {
      mantissa = mantissa * 10 + (*p - '0');
      if (after_point) --exponent;
    }
  }
  numeric r(negative ? -mantissa : mantissa);
  return exponent >= 0 ? r * GiNaC::pow(numeric(10), exponent) : r / GiNaC::pow(numeric(10), -exponent);
}

const ex& Symbols::of(uint32_t var) {
  auto it = by_var_.find(var);
  if (it != by_var_.end()) return it->second;
  ex s = GiNaC::realsymbol(var < names_->size() ? (*names_)[var] : "v" + std::to_string(var));
  by_symbol_.emplace(s, var);
  return by_var_.emplace(var, s).first->second;
}

std::optional<uint32_t> Symbols::var_of(const ex& symbol) const {
  auto it = by_symbol_.find(symbol);
  if (it == by_symbol_.end()) return std::nullopt;
  return it->second;
}

namespace {

// Visits every distinct node of an expression once. GiNaC shares subexpressions, so a value built from
// a deep cone is a DAG whose tree form can be exponentially larger; walking the tree would take that
// long. `visit` returns false to stop early.
// Nodes are told apart by address, so every visited node is kept alive until the walk ends: op(i) of a
// sum or product can build a fresh temporary (65536*x out of the pair (x, 65536)), and once freed, its
// address could be reused by the next temporary, which would then be skipped as "seen" (that hid
// variables from free_vars, and so from the missing-input list).
template <class Visit>
void each_node(const ex& e, Visit visit) {
  std::unordered_set<const GiNaC::basic*> seen;
  std::vector<ex> visited;
  std::vector<ex> stack{e};
  while (!stack.empty()) {
    ex x = stack.back();
    stack.pop_back();
    if (!seen.insert(&GiNaC::ex_to<GiNaC::basic>(x)).second) continue;
    visited.push_back(x);
    if (!visit(x)) return;
    for (size_t i = 0; i < x.nops(); ++i) stack.push_back(x.op(i));
  }
}

}  // namespace

std::vector<uint32_t> Symbols::free_vars(const ex& e) const {
  std::vector<uint32_t> out;
  each_node(e, [&](const ex& x) {
    if (GiNaC::is_a<GiNaC::symbol>(x))
      if (auto v = var_of(x)) out.push_back(*v);
    return true;
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool has_symbols(const ex& e) {
  if (GiNaC::is_a<numeric>(e)) return false;
  bool found = false;
  each_node(e, [&](const ex& x) {
    found = GiNaC::is_a<GiNaC::symbol>(x);
    return !found;
  });
  return found;
}

std::optional<bool> decide(const ex& c) {
  if (GiNaC::is_a<numeric>(c)) return !c.is_zero();
  if (!GiNaC::is_a<GiNaC::relational>(c)) return std::nullopt;
  auto d = real_value(c.lhs() - c.rhs());
  if (!d) return std::nullopt;
  using GiNaC::info_flags;
  if (c.info(info_flags::relation_equal)) return d->is_zero();
  if (c.info(info_flags::relation_not_equal)) return !d->is_zero();
  if (c.info(info_flags::relation_less)) return d->is_negative();
  if (c.info(info_flags::relation_less_or_equal)) return !d->is_positive();
  if (c.info(info_flags::relation_greater)) return d->is_positive();
  return !d->is_negative();  // greater or equal
}

namespace {
// Whether `marker` (a symbol) occurs in `e`. GiNaC's ex::has walks the expression as a tree, which is
// exponential in depth when subexpressions are shared (an answer in many missing inputs through a deep
// cone); each_node visits each shared node once.
bool contains_symbol(const ex& e, const ex& marker) {
  if (GiNaC::is_a<numeric>(e)) return false;
  bool found = false;
  each_node(e, [&](const ex& x) {
    found = GiNaC::is_a<GiNaC::symbol>(x) && x.is_equal(marker);
    return !found;
  });
  return found;
}
}  // namespace

bool is_undefined(const ex& e) { return contains_symbol(e, undefined()) || contains_symbol(e, overflowed()); }

std::string undefined_reason(const ex& e) {
  if (contains_symbol(e, overflowed())) return "a value exceeds the range of a double (about 1.8e308)";
  return "division by zero";
}

std::optional<double> to_double(const ex& e) {
  auto n = real_value(e);
  if (!n) return std::nullopt;
  const double d = as_double(*n);
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

ex relation(Op op, const ex& a, const ex& b) {
  ex r;
  switch (op) {
    case Op::Lt: r = a < b; break;
    case Op::Le: r = a <= b; break;
    case Op::Gt: r = a > b; break;
    case Op::Ge: r = a >= b; break;
    case Op::Eq: r = a == b; break;
    default: r = a != b; break;
  }
  if (auto d = decide(r)) return truth(*d);
  return r;
}

namespace {

ex call(Func f, const std::vector<ex>& args) {
  const ex& x = args[0];
  switch (f) {
    case Func::Exp: return GiNaC::exp(x);
    case Func::Log: return GiNaC::log(x);
    case Func::Sqrt: return GiNaC::sqrt(x);
    case Func::Sin: return GiNaC::sin(x);
    case Func::Cos: return GiNaC::cos(x);
    case Func::Tan: return GiNaC::tan(x);
    case Func::Tanh: return GiNaC::tanh(x);
    case Func::Atan: return GiNaC::atan(x);
    case Func::Abs: return GiNaC::abs(x);
    case Func::Floor: return gs_floor(x);
    case Func::Ceil: return gs_ceil(x);
    case Func::Log2: return GiNaC::log(x) / GiNaC::log(ex(2));
    case Func::Log10: return GiNaC::log(x) / GiNaC::log(ex(10));
    case Func::Min:
    case Func::Max: {
      ex acc = args.back();
      for (size_t i = args.size() - 1; i-- > 0;) acc = f == Func::Min ? ex(gs_min(args[i], acc)) : ex(gs_max(args[i], acc));
      return acc;
    }
  }
  throw std::runtime_error("unknown function in expression");
}

}  // namespace

Built build(const Expr& e, const VarValue& value, Symbols& symbols, const std::vector<ex>& locals) {
  std::vector<ex> st;
  auto pop = [&] {
    if (st.empty()) throw std::runtime_error("malformed expression (stack underflow)");
    ex x = st.back();
    st.pop_back();
    return x;
  };
  auto pop_n = [&](size_t n) {
    if (st.size() < n) throw std::runtime_error("malformed expression (stack underflow)");
    std::vector<ex> args(st.end() - long(n), st.end());
    st.resize(st.size() - n);
    return args;
  };
  for (const Node& n : e.nodes) {
    switch (n.op) {
      case Op::Num: st.push_back(number(n.value)); break;
      case Op::Var: {
        auto v = value(n.index);
        st.push_back(v ? *v : symbols.of(n.index));
        break;
      }
      case Op::Local:
        if (n.index >= locals.size()) throw std::runtime_error("expression reads a local binder that is not bound");
        st.push_back(locals[n.index]);
        break;
      case Op::Neg: st.push_back(-pop()); break;
      case Op::Not: st.push_back(gs_not(pop())); break;
      case Op::Call: {
        auto args = pop_n(n.count);
        st.push_back(arithmetic([&] { return call(static_cast<Func>(n.index), args); }));
        break;
      }
      case Op::Piecewise: {
        auto args = pop_n(n.count);
        ex acc = args.back();
        for (size_t i = args.size() - 1; i >= 2; i -= 2) acc = gs_if(args[i - 1], args[i - 2], acc);
        st.push_back(acc);
        break;
      }
      default: {
        ex b = pop(), a = pop();
        switch (n.op) {
          case Op::Add: st.push_back(arithmetic([&] { return a + b; })); break;
          case Op::Sub: st.push_back(arithmetic([&] { return a - b; })); break;
          case Op::Mul: st.push_back(arithmetic([&] { return a * b; })); break;
          // A division by an exact zero is not an error while it may sit in a piecewise branch that is
          // not taken; it becomes the `undefined` symbol, which never resolves to a number.
          case Op::Div: st.push_back(is_exact_zero(b) ? undefined() : arithmetic([&] { return a / b; })); break;
          case Op::Pow: st.push_back(arithmetic([&] { return power(a, b); })); break;
          case Op::And: st.push_back(gs_and(a, b)); break;
          case Op::Or: st.push_back(gs_or(a, b)); break;
          default: st.push_back(relation(n.op, a, b)); break;
        }
      }
    }
  }
  if (st.size() != 1) throw std::runtime_error("malformed expression");
  Built out{st.back(), has_symbols(st.back())};
  if (!out.symbolic && !GiNaC::is_a<numeric>(out.value)) {
    ex f = arithmetic([&] { return out.value.evalf(); });
    if (GiNaC::is_a<numeric>(f) || is_undefined(f)) out.value = f;
  }
  return out;
}

namespace {

// A small infix printer: GiNaC's own output shows rationals as fractions and floats with every digit
// of its working precision, which reads badly in a formula meant for people.
class Printer {
 public:
  std::string print(const ex& e, int context) {
    using GiNaC::is_a;
    if (is_a<numeric>(e)) return num(GiNaC::ex_to<numeric>(e), context);
    if (is_a<GiNaC::symbol>(e)) return GiNaC::ex_to<GiNaC::symbol>(e).get_name();
    if (is_a<GiNaC::add>(e)) return wrap(sum(e), context > kSum);
    if (is_a<GiNaC::mul>(e)) return wrap(product(e), context > kProduct);
    if (is_a<GiNaC::power>(e)) return power(e, context);
    if (is_a<GiNaC::relational>(e)) return wrap(print(e.lhs(), kSum) + relation(e) + print(e.rhs(), kSum), context > kRelation);
    if (is_a<GiNaC::function>(e)) {
      std::string s = GiNaC::ex_to<GiNaC::function>(e).get_name() + "(";
      for (size_t i = 0; i < e.nops(); ++i) s += (i ? ", " : "") + print(e.op(i), kRelation);
      return s + ")";
    }
    std::ostringstream os;
    os << e;
    return wrap(os.str(), context > kRelation);
  }

 private:
  static constexpr int kRelation = 0, kSum = 1, kProduct = 2, kPower = 3;

  static std::string wrap(const std::string& s, bool paren) { return paren ? "(" + s + ")" : s; }

  static std::string num(const numeric& n, int context) {
    std::string s;
    if (n.is_integer() && GiNaC::abs(n) < numeric(1000000000000000L)) s = std::to_string(n.to_long());
    else if (n.is_real()) s = fmt::format("{:.10g}", n.to_double());
    else {
      std::ostringstream os;
      os << ex(n);
      s = os.str();
    }
    return wrap(s, (n.is_negative() && context > kSum) || (!n.is_real() && context > kRelation));
  }

  static std::string relation(const ex& e) {
    using GiNaC::info_flags;
    if (e.info(info_flags::relation_equal)) return " == ";
    if (e.info(info_flags::relation_not_equal)) return " != ";
    if (e.info(info_flags::relation_less)) return " < ";
    if (e.info(info_flags::relation_less_or_equal)) return " <= ";
    if (e.info(info_flags::relation_greater)) return " > ";
    return " >= ";
  }

  // A term's sign and magnitude, so sums read "a - b" rather than "a + -1*b".
  static bool negative_term(const ex& t) {
    if (GiNaC::is_a<numeric>(t)) return GiNaC::ex_to<numeric>(t).is_negative();
    if (GiNaC::is_a<GiNaC::mul>(t)) {
      const ex& c = t.op(t.nops() - 1);
      return GiNaC::is_a<numeric>(c) && GiNaC::ex_to<numeric>(c).is_negative();
    }
    return false;
  }

  std::string sum(const ex& e) {
    std::string s;
    for (size_t i = 0; i < e.nops(); ++i) {
      const ex& t = e.op(i);
      bool neg = negative_term(t);
      std::string body = print(neg ? ex(-t) : t, kProduct - 1);
      s += i == 0 ? (neg ? "-" + body : body) : (neg ? " - " : " + ") + body;
    }
    return s;
  }

  std::string product(const ex& e) {
    std::vector<std::string> top, bottom;
    numeric coeff(1);
    for (size_t i = 0; i < e.nops(); ++i) {
      const ex& f = e.op(i);
      if (GiNaC::is_a<numeric>(f) && GiNaC::ex_to<numeric>(f).is_real()) {
        coeff = coeff * GiNaC::ex_to<numeric>(f);
      } else if (GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<numeric>(f.op(1)) &&
                 GiNaC::ex_to<numeric>(f.op(1)).is_negative()) {
        bottom.push_back(print(GiNaC::pow(f.op(0), -f.op(1)), kPower));
      } else {
        top.push_back(print(f, kProduct));
      }
    }
    std::string s;
    if (coeff.is_negative()) s = "-", coeff = -coeff;
    // A rational coefficient p/q is shown as p*.../q so 1/3 stays exact-looking.
    if (coeff.is_rational() && !coeff.is_integer() && coeff.denom() < numeric(1000000)) {
      if (!(coeff.numer() == numeric(1))) top.insert(top.begin(), num(coeff.numer(), kProduct));
      bottom.insert(bottom.begin(), num(coeff.denom(), kPower));
    } else if (!(coeff == numeric(1))) {
      top.insert(top.begin(), num(coeff, kProduct));
    }
    auto join = [](const std::vector<std::string>& v) {
      std::string out;
      for (size_t i = 0; i < v.size(); ++i) out += (i ? "*" : "") + v[i];
      return out;
    };
    s += top.empty() ? "1" : join(top);
    if (!bottom.empty()) s += "/" + (bottom.size() == 1 ? bottom[0] : "(" + join(bottom) + ")");
    return s;
  }

  std::string power(const ex& e, int context) {
    const ex& b = e.op(0);
    const ex& p = e.op(1);
    if (p.is_equal(GiNaC::numeric(1, 2))) return "sqrt(" + print(b, kRelation) + ")";
    if (GiNaC::is_a<numeric>(p) && GiNaC::ex_to<numeric>(p).is_negative())
      return wrap("1/" + print(GiNaC::pow(b, -p), kPower), context > kProduct);
    return wrap(print(b, kPower + 1) + "^" + print(p, kPower + 1), context > kPower);
  }
};

}  // namespace

// The size of `e` written out as a tree, counting shared subexpressions each time they are used, capped
// at `cap`. A depth-first walk that remembers each shared node's size, so it costs the DAG's size. Some
// GiNaC nodes build their operands anew on each op(i) call (a sum's coefficient times a term), so every
// node visited is kept alive: a freed temporary's address must never be mistaken for a remembered node.
size_t printed_size(const ex& e, size_t cap) {
  struct Frame {
    ex x;
    size_t next = 0;
    size_t size = 1;
  };
  std::unordered_map<const GiNaC::basic*, size_t> size_of;
  std::vector<ex> keep;
  std::vector<Frame> stack{{e}};
  size_t result = 0;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.x.nops() && f.size < cap) {
      ex child = f.x.op(f.next++);
      const GiNaC::basic* key = &GiNaC::ex_to<GiNaC::basic>(child);
      if (auto it = size_of.find(key); it != size_of.end()) {
        f.size = std::min(cap, f.size + it->second);
        continue;
      }
      keep.push_back(child);
      stack.push_back({child});
      continue;
    }
    const size_t done = f.size;
    size_of[&GiNaC::ex_to<GiNaC::basic>(f.x)] = done;
    stack.pop_back();
    if (stack.empty()) result = done;
    else stack.back().size = std::min(cap, stack.back().size + done);
  }
  return result;
}

std::string to_string(const ex& e) {
  // A formula in many missing inputs through a deep cone shares its subexpressions; written out it can
  // be exponentially long (hundreds of megabytes, minutes to print). Past this size it is not printed.
  constexpr size_t kMaxPrintedTerms = 200000;
  if (printed_size(e, kMaxPrintedTerms + 1) > kMaxPrintedTerms)
    return "(a formula of more than " + std::to_string(kMaxPrintedTerms) +
           " terms, not printed: assign the missing inputs to get a number)";
  return Printer().print(e, 0);
}

}  // namespace gs::sym
