#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "runtime/symbolic.h"

using namespace gs;
using GiNaC::ex;
using GiNaC::numeric;

namespace {

// Builds a postfix expression from nodes; variables 0..2 are named x, y, z.
struct Fixture {
  std::vector<std::string> names{"x", "y", "z"};
  sym::Symbols symbols{&names};
  std::map<uint32_t, ex> values;

  sym::Built run(std::vector<Node> nodes) {
    return sym::build(Expr{std::move(nodes)}, [&](uint32_t v) -> std::optional<ex> {
      auto it = values.find(v);
      return it == values.end() ? std::nullopt : std::optional<ex>(it->second);
    }, symbols);
  }
};

Node num(double v) { return {Op::Num, 0, 0, v}; }
Node var(uint32_t i) { return {Op::Var, i}; }
Node op(Op o) { return {o}; }
Node call(Func f, uint32_t n) { return {Op::Call, uint32_t(f), n}; }

}  // namespace

TEST_CASE("symbolic: numbers enter as the exact decimals they print as") {
  CHECK(sym::number(8).is_equal(numeric(8)));
  CHECK(sym::number(0.36).is_equal(numeric(9, 25)));
  CHECK(sym::number(0.025).is_equal(numeric(1, 40)));
  CHECK(sym::number(-1e-7).is_equal(numeric(-1, 10000000)));
  CHECK(sym::number(1e30).is_equal(GiNaC::pow(numeric(10), 30)));
  CHECK_THROWS_AS(sym::number(std::numeric_limits<double>::infinity()), std::domain_error);
  // 0.1 + 0.2 is exactly 0.3 here, unlike in binary floating point.
  Fixture f;
  auto r = f.run({num(0.1), num(0.2), op(Op::Add)});
  CHECK(r.value.is_equal(numeric(3, 10)));
}

TEST_CASE("symbolic: unknown variables stay symbols; known ones are substituted") {
  Fixture f;
  f.values[0] = numeric(3);
  auto r = f.run({var(0), var(1), op(Op::Mul)});
  CHECK(r.symbolic);
  CHECK(f.symbols.free_vars(r.value) == std::vector<uint32_t>{1});
  CHECK(sym::to_string(r.value) == "3*y");
  f.values[1] = numeric(5);
  auto n = f.run({var(0), var(1), op(Op::Mul)});
  CHECK_FALSE(n.symbolic);
  CHECK(sym::to_double(n.value) == 15.0);
}

TEST_CASE("symbolic: min, max, floor, ceil and piecewise fold on numbers and hold on symbols") {
  Fixture f;
  CHECK(sym::to_double(f.run({num(3), num(-2), num(7), call(Func::Min, 3)}).value) == -2.0);
  CHECK(sym::to_double(f.run({num(3), num(-2), num(7), call(Func::Max, 3)}).value) == 7.0);
  CHECK(f.run({num(-2.5), call(Func::Floor, 1)}).value.is_equal(numeric(-3)));
  CHECK(f.run({num(-2.5), call(Func::Ceil, 1)}).value.is_equal(numeric(-2)));
  CHECK(f.run({num(7), num(2), op(Op::Div), call(Func::Floor, 1)}).value.is_equal(numeric(3)));
  CHECK(sym::to_double(f.run({num(8), call(Func::Log2, 1)}).value) == doctest::Approx(3.0));
  CHECK(sym::to_double(f.run({num(2), call(Func::Sqrt, 1)}).value) == doctest::Approx(1.41421356237));

  // piecewise { 1 if x <= 2; 2/x otherwise }
  std::vector<Node> pw = {num(1), var(0), num(2), op(Op::Le), num(2), var(0), op(Op::Div), {Op::Piecewise, 0, 3}};
  auto held = f.run(pw);
  CHECK(held.symbolic);
  CHECK(sym::to_string(held.value).find("if(") != std::string::npos);
  f.values[0] = numeric(4);
  CHECK(f.run(pw).value.is_equal(numeric(1, 2)));
  f.values[0] = numeric(1);
  CHECK(f.run(pw).value.is_equal(numeric(1)));

  // min with a symbol is held, and shows as min(...)
  f.values.clear();
  auto m = f.run({var(0), num(1), call(Func::Min, 2)});
  CHECK(sym::to_string(m.value).find("min(") != std::string::npos);
}

TEST_CASE("symbolic: conditions decide when they can") {
  Fixture f;
  CHECK(sym::decide(f.run({num(1), num(2), op(Op::Lt)}).value) == true);
  CHECK(sym::decide(f.run({num(1), num(2), op(Op::Ge)}).value) == false);
  auto open = f.run({var(0), num(2), op(Op::Lt)}).value;
  CHECK_FALSE(sym::decide(open).has_value());
  // false and (x < 2) is decided without x; true and (x < 2) is not.
  CHECK(sym::decide(f.run({num(1), num(2), op(Op::Gt), var(0), num(2), op(Op::Lt), op(Op::And)}).value) == false);
  CHECK_FALSE(sym::decide(f.run({num(1), num(2), op(Op::Lt), var(0), num(2), op(Op::Lt), op(Op::And)}).value).has_value());
  CHECK(sym::decide(f.run({num(1), num(2), op(Op::Lt), var(0), num(2), op(Op::Lt), op(Op::Or)}).value) == true);
  CHECK(sym::decide(f.run({num(1), num(2), op(Op::Lt), op(Op::Not)}).value) == false);
  CHECK(sym::decide(sym::relation(Op::Eq, numeric(1, 3), numeric(2, 6))) == true);
}

TEST_CASE("symbolic: local binders carry iteration state") {
  Fixture f;
  Expr map{{{Op::Local, 0}, num(2), op(Op::Mul)}};
  ex x = numeric(3);
  for (int i = 0; i < 3; ++i) x = sym::build(map, [](uint32_t) { return std::nullopt; }, f.symbols, {x}).value;
  CHECK(x.is_equal(numeric(24)));
  CHECK_THROWS_AS(sym::build(map, [](uint32_t) { return std::nullopt; }, f.symbols), std::runtime_error);
}

TEST_CASE("symbolic: division by zero surfaces as a value that is no number") {
  Fixture f;
  auto r = f.run({num(1), num(0), op(Op::Div)});
  CHECK(r.symbolic);
  CHECK_FALSE(sym::to_double(r.value).has_value());
}

TEST_CASE("symbolic: formulas print with decimals and readable signs") {
  Fixture f;
  auto r = f.run({var(0), num(0.5), op(Op::Mul), var(1), op(Op::Sub)});
  std::string s = sym::to_string(r.value);
  CHECK(s.find("x") != std::string::npos);
  CHECK(s.find("y") != std::string::npos);
  CHECK(s.find("+ -") == std::string::npos);
  CHECK(sym::to_string(numeric(3, 20)) == "0.15");
  CHECK(sym::to_string(numeric(72)) == "72");
}

TEST_CASE("symbolic: a power whose exact value would be huge is evaluated in doubles and overflows") {
  Fixture f;
  // 2^(2^31) has 2^31 bits exactly; in doubles it is past the range at once.
  auto r = f.run({num(2), num(2147483648.0), op(Op::Pow)});
  CHECK(sym::is_undefined(r.value));
  CHECK(sym::undefined_reason(r.value).find("range of a double") != std::string::npos);
  CHECK_FALSE(sym::to_double(r.value).has_value());
  // A large exponent with a result in range: 1.0000001^(1e7) = e^(0.99999995...) in doubles.
  r = f.run({num(1.0000001), num(1e7), op(Op::Pow)});
  REQUIRE(sym::to_double(r.value).has_value());
  CHECK(*sym::to_double(r.value) == doctest::Approx(std::pow(1.0000001, 1e7)).epsilon(1e-12));
  // Small powers stay exact rationals.
  r = f.run({num(2), num(100), op(Op::Pow)});
  CHECK(r.value.is_equal(GiNaC::pow(numeric(2), 100)));
  r = f.run({num(0.5), num(3), op(Op::Pow)});
  CHECK(r.value.is_equal(numeric(1, 8)));
}

TEST_CASE("symbolic: repeated squaring stays bounded and overflow is reported, not hung") {
  Fixture f;
  f.values[0] = sym::number(3);
  // x^2^2^... : each step doubles the exact size; past 4096 bits the value continues as a double.
  ex x = sym::number(3);
  for (int i = 0; i < 40; ++i) {
    f.values[0] = x;
    x = f.run({var(0), var(0), op(Op::Mul)}).value;
    if (sym::is_undefined(x)) break;
  }
  CHECK(sym::is_undefined(x));
  CHECK(sym::undefined_reason(x).find("range of a double") != std::string::npos);
}

TEST_CASE("symbolic: an overflow in an untaken piecewise branch does not fail the value") {
  Fixture f;
  // piecewise { 2^(2^31) if 1 < 0; 7 otherwise }
  auto r = f.run({num(2), num(2147483648.0), op(Op::Pow), num(1), num(0), op(Op::Lt), num(7), {Op::Piecewise, 0, 3}});
  REQUIRE(sym::to_double(r.value).has_value());
  CHECK(*sym::to_double(r.value) == 7.0);
}

TEST_CASE("symbolic: a power in the subnormal range keeps its value; a float product below it is zero") {
  Fixture f;
  // 0.75^2470 = 2.5e-309 lies below the smallest normal double (2.2e-308). CLN's floats have no
  // subnormals and signalled an underflow, which failed the relation (the MoE expert share
  // 1 - (1 - k/E)^B of a 2,470-sequence batch). It is the exact binary fraction std::pow gives.
  const double tiny = std::pow(0.75, 2470.0);
  REQUIRE(std::fpclassify(tiny) == FP_SUBNORMAL);
  auto r = f.run({num(0.75), num(2470), op(Op::Pow)});
  REQUIRE(GiNaC::is_a<numeric>(r.value));
  CHECK(GiNaC::ex_to<numeric>(r.value).is_rational());
  CHECK(r.value.is_equal(numeric(static_cast<long>(std::ldexp(tiny, 1074))) / numeric(2).power(numeric(1074))));
  r = f.run({num(1), num(0.75), num(2470), op(Op::Pow), op(Op::Sub)});
  REQUIRE(sym::to_double(r.value).has_value());
  CHECK(*sym::to_double(r.value) == 1.0);
  // Either side of the subnormal range: 0.75^2462 = 2.5e-308 (normal) and 0.75^2600 (below every double, 0).
  r = f.run({num(1), num(0.75), num(2462), op(Op::Pow), op(Op::Sub)});
  CHECK(*sym::to_double(r.value) == 1.0);
  r = f.run({num(0.75), num(2600), op(Op::Pow)});
  CHECK(*sym::to_double(r.value) == 0.0);
  // Two normal floats whose product is below 2.2e-308: zero, not a failed relation.
  f.values[0] = f.run({num(0.9), num(5000.5), op(Op::Pow)}).value;  // 1.5e-229, a double-precision float
  REQUIRE_FALSE(GiNaC::ex_to<numeric>(f.values[0]).is_rational());
  r = f.run({var(0), var(0), op(Op::Mul)});
  REQUIRE(sym::to_double(r.value).has_value());
  CHECK(*sym::to_double(r.value) == 0.0);
  r = f.run({num(2), var(0), var(0), op(Op::Mul), op(Op::Add)});
  CHECK(*sym::to_double(r.value) == 2.0);
}
