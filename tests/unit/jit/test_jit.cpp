// The JIT against values computed by hand. Programs are built from relations compiled by the real
// front end, so the expression encoding under test is exactly what images carry.
#include <doctest/doctest.h>

#include <array>
#include <cmath>

#include "runtime/jit/jit.h"
#include "tests/unit/support/model_fixture.h"

namespace {

using gs::testing::compile_with_units;
using gs::testing::program;
using gs::testing::var_id;

const char* kCostModel = R"(
system t
ref r "test"
var t.price : USD/(kW*h) "tariff" ref r
var t.power : kW "power" ref r
var t.hours : h "duration" ref r
var t.energy : kW*h "energy" ref r
var t.cost : USD "cost" ref r
eq energy: t.energy = t.power * t.hours
eq cost: t.cost = t.price * t.energy
)";

}  // namespace

TEST_CASE("a compiled cone reproduces hand arithmetic in base units") {
  auto img = compile_with_units(kCostModel);
  gs::Jit jit;
  auto cone = jit.compile(program(img, {"t.price", "t.power", "t.hours"}, {"t.energy", "t.cost"}));
  REQUIRE((cone.one != nullptr && cone.batch != nullptr));
  // 0.36 USD/kWh, 5.2 kW for 1.5 h, all in base units: USD/J, W, s.
  const double in[] = {0.36 / 3.6e6, 5200.0, 1.5 * 3600.0};
  double out[2];
  cone.one(in, out);
  CHECK(out[0] == doctest::Approx(5200.0 * 5400.0).epsilon(1e-15));
  CHECK(out[1] == doctest::Approx(0.36 * 5.2 * 1.5).epsilon(1e-14));  // 2.808 USD
}

TEST_CASE("the batch entry point evaluates every row") {
  auto img = compile_with_units(kCostModel);
  gs::Jit jit;
  auto cone = jit.compile(program(img, {"t.price", "t.power", "t.hours"}, {"t.cost"}));
  std::vector<double> in, out(1000);
  for (int i = 0; i < 1000; ++i) in.insert(in.end(), {1e-7, 1000.0 + i, 3600.0});
  cone.batch(in.data(), out.data(), 1000);
  for (int i = 0; i < 1000; i += 97) CHECK(out[size_t(i)] == doctest::Approx(1e-7 * (1000.0 + i) * 3600.0).epsilon(1e-14));
}

TEST_CASE("compiled cones are cached by content hash") {
  auto img = compile_with_units(kCostModel);
  gs::Jit jit;
  auto p = program(img, {"t.price", "t.power", "t.hours"}, {"t.cost"});
  auto first = jit.compile(p), second = jit.compile(p);
  CHECK_FALSE(first.cached);
  CHECK(second.cached);
  REQUIRE((first.one.target<gs::ConeFn>() != nullptr && second.one.target<gs::ConeFn>() != nullptr));
  CHECK(reinterpret_cast<void*>(*first.one.target<gs::ConeFn>()) == reinterpret_cast<void*>(*second.one.target<gs::ConeFn>()));
  auto other = p;
  other.outputs.push_back(var_id(img, "t.energy"));
  CHECK(other.content_hash() != p.content_hash());
}

TEST_CASE("piecewise, min, max, floor, ceil, pow, exp and log") {
  auto img = compile_with_units(R"(
system t
ref r "test"
var t.x : 1 "input" ref r
var t.pw : 1 "piecewise" ref r
var t.mm : 1 "min/max" ref r
var t.fc : 1 "floor and ceil" ref r
var t.pe : 1 "pow, exp, log" ref r
eq pw: t.pw = piecewise { 1 if t.x < 0; t.x ^ 2 if t.x < 2; 10 otherwise }
eq mm: t.mm = max(min(t.x, 3), -1)
eq fc: t.fc = floor(t.x) + ceil(t.x)
eq pe: t.pe = exp(log(t.x ^ 1.5)) + sqrt(t.x) + t.x ^ -1
)");
  gs::Jit jit;
  auto cone = jit.compile(program(img, {"t.x"}, {"t.pw", "t.mm", "t.fc", "t.pe"}));
  auto eval = [&](double x) {
    std::array<double, 4> out{};
    cone.one(&x, out.data());
    return out;
  };
  auto a = eval(1.5);
  CHECK(a[0] == doctest::Approx(2.25));
  CHECK(a[1] == doctest::Approx(1.5));
  CHECK(a[2] == doctest::Approx(3.0));
  CHECK(a[3] == doctest::Approx(std::pow(1.5, 1.5) + std::sqrt(1.5) + 1 / 1.5).epsilon(1e-13));
  auto b = eval(-4);
  CHECK(b[0] == 1.0);
  CHECK(b[1] == -1.0);
  CHECK(b[2] == -8.0);
  CHECK(eval(7)[0] == 10.0);
  CHECK(eval(7)[1] == 3.0);
}

TEST_CASE("NaN and infinity reach the caller") {
  auto img = compile_with_units(R"(
system t
ref r "test"
var t.x : 1 "input" ref r
var t.y : 1 "quotient" ref r
var t.m : 1 "min with a NaN operand" ref r
eq y: t.y = 1 / t.x
eq m: t.m = min(log(t.x), 5)
)");
  gs::Jit jit;
  auto cone = jit.compile(program(img, {"t.x"}, {"t.y", "t.m"}));
  double x = 0, out[2];
  cone.one(&x, out);
  CHECK(std::isinf(out[0]));
  x = -1;
  cone.one(&x, out);
  CHECK(std::isnan(out[1]));  // log(-1) is NaN and min must not hide it
}

TEST_CASE("a malformed program is refused, not miscompiled") {
  auto img = compile_with_units(kCostModel);
  gs::Jit jit;
  auto p = program(img, {"t.price"}, {"t.cost"});  // t.power and t.hours are never provided
  CHECK_THROWS_WITH_AS(jit.compile(p), doctest::Contains("used before it is computed"), std::runtime_error);
}

// A cone far past one function's worth of nodes is compiled as a sequence of functions (jit_llvm.cpp,
// kSingleFunctionNodes): values cross between them through slots, inputs are read in every chunk, and an
// input that is also an output is copied. The same operations in C++ give the same bits.
TEST_CASE("a long cone compiled in chunks gives the step-by-step values, one row and in blocks") {
  constexpr uint32_t a = 0, b = 1, steps = 8'000, first = 10;  // x_i has id first + i
  gs::ConeProgram p;
  p.inputs = {a, b};
  using gs::Op;
  for (uint32_t i = 1; i <= steps; ++i) {
    const uint32_t prev = i == 1 ? a : first + i - 1;
    gs::Expr e{{{Op::Var, prev}, {Op::Num, 0, 0, 0.5}, {Op::Mul}, {Op::Var, b}, {Op::Num, 0, 0, 4.0}, {Op::Div}, {Op::Add},
                {Op::Var, a}, {Op::Num, 0, 0, 1e-3}, {Op::Mul}, {Op::Add}}};
    if (i > 5'000) e.nodes.insert(e.nodes.end(), {{Op::Var, first + i - 4'000}, {Op::Num, 0, 0, 1e-6}, {Op::Mul}, {Op::Add}});
    p.steps.push_back({first + i, std::move(e)});
  }
  p.outputs = {first + 1'000, a, first + 4'500, first + steps};
  auto expected = [&](double av, double bv) {
    std::vector<double> x(steps + 1);
    x[0] = av;
    for (uint32_t i = 1; i <= steps; ++i) {
      x[i] = x[i - 1] * 0.5 + bv / 4.0 + av * 1e-3;
      if (i > 5'000) x[i] = x[i] + x[i - 4'000] * 1e-6;
    }
    return std::array<double, 4>{x[1'000], av, x[4'500], x[steps]};
  };
  for (bool vectorize : {true, false}) {
    INFO("vectorize " << vectorize);
    gs::Jit jit(gs::JitOptions{.vectorize = vectorize});
    auto cone = jit.compile(p);
    double out[4];
    const double in[] = {3.0, -2.0};
    cone.one(in, out);
    const auto want = expected(3.0, -2.0);
    for (int k = 0; k < 4; ++k) CHECK(out[k] == want[size_t(k)]);
    constexpr size_t rows = 130;  // two full blocks of 64 and a short one
    std::vector<double> ins(rows * 2), outs(rows * 4);
    for (size_t r = 0; r < rows; ++r) ins[2 * r] = 0.25 * double(r), ins[2 * r + 1] = 1.0 - double(r);
    cone.batch(ins.data(), outs.data(), rows);
    for (size_t r = 0; r < rows; ++r) {
      const auto w = expected(ins[2 * r], ins[2 * r + 1]);
      for (size_t k = 0; k < 4; ++k) CHECK(outs[4 * r + k] == w[k]);
    }
  }
}

// Where the SIMD kernel departs from libm (docs/runtime.md "SIMD batch kernels"): constant whole powers
// are multiplications, and with JitOptions::vector_math exp, log, pow, sin and cos in the widened loop
// are libmvec's vector forms. Each stays within its stated bound of the libm value, special values
// included, with and without libmvec.
TEST_CASE("integer powers and vector math stay within their error bounds of libm") {
  auto img = compile_with_units(R"(
system t
ref r "test"
var t.x : 1 "input" ref r
var t.p3 : 1 "cube" ref r
var t.p7 : 1 "seventh power" ref r
var t.p16 : 1 "sixteenth power" ref r
var t.e : 1 "exp" ref r
var t.l : 1 "log" ref r
var t.pw : 1 "non-integer power" ref r
var t.s : 1 "sin" ref r
var t.c : 1 "cos" ref r
eq p3: t.p3 = t.x ^ 3
eq p7: t.p7 = t.x ^ 7
eq p16: t.p16 = t.x ^ 16
eq e: t.e = exp(t.x)
eq l: t.l = log(t.x)
eq pw: t.pw = t.x ^ 1.37
eq s: t.s = sin(t.x)
eq c: t.c = cos(t.x)
)");
  const auto cone_program = program(img, {"t.x"}, {"t.p3", "t.p7", "t.p16", "t.e", "t.l", "t.pw", "t.s", "t.c"});
  for (const bool vector_math : {false, true}) {
    INFO("vector math " << vector_math);
    gs::JitOptions options;
    options.vector_math = vector_math;
    gs::Jit jit(options);
    const auto cone = jit.compile(cone_program);
    std::vector<double> x = {0.0, -0.0, INFINITY, -INFINITY, NAN, -2.0, 1.0, 1e-300, 1e300, 700.0, -745.0};
    for (int i = 0; i < 1000; ++i) x.push_back(-30 + 60 * (i + 0.5) / 1000);
    std::vector<double> out(x.size() * 8);
    cone.batch(x.data(), out.data(), x.size());
    const double u = std::ldexp(1.0, -53);  // unit roundoff
    auto ulp = [](double v) { return std::fabs(std::nextafter(std::fabs(v), INFINITY) - std::fabs(v)); };
    // Within `bound` relative (powers) or `ulps` units in the last place (libmvec), or the same special value.
    auto within = [&](double got, double want, double bound, double ulps) {
      if (std::isnan(want) || std::isinf(want) || want == 0) return std::isnan(want) ? std::isnan(got) : got == want;
      return std::fabs(got - want) <= std::max(bound * std::fabs(want), ulps * ulp(want));
    };
    for (size_t r = 0; r < x.size(); ++r) {
      const double* y = &out[r * 8];
      INFO("x = " << x[r]);
      CHECK(within(y[0], std::pow(x[r], 3), 3 * u, 0));
      CHECK(within(y[1], std::pow(x[r], 7), 7 * u, 0));
      CHECK(within(y[2], std::pow(x[r], 16), 16 * u, 0));
      CHECK(within(y[3], std::exp(x[r]), 0, 4));
      CHECK(within(y[4], std::log(x[r]), 0, 4));
      CHECK(within(y[5], std::pow(x[r], 1.37), 0, 4));
      CHECK(within(y[6], std::sin(x[r]), 0, 4));
      CHECK(within(y[7], std::cos(x[r]), 0, 4));
    }
  }
}
