// The image's expression form: functions, variable sets and rendering.
#include <doctest/doctest.h>

#include "image/expr.h"
#include "image/suggest.h"
#include "sample_image.h"

using namespace gs;
using namespace gs::testing;

TEST_CASE("functions by name, with ln as log") {
  Func f;
  REQUIRE(func_by_name("sqrt", f));
  CHECK(f == Func::Sqrt);
  CHECK_FALSE(func_info(f).needs_dimensionless);
  REQUIRE(func_by_name("ln", f));
  CHECK(f == Func::Log);
  REQUIRE(func_by_name("max", f));
  CHECK(func_info(f).min_args == 2);
  CHECK(func_info(f).max_args == 16);
  REQUIRE(func_by_name("exp", f));
  CHECK(func_info(f).needs_dimensionless);
  CHECK_FALSE(func_by_name("sqroot", f));
}

TEST_CASE("variables read by an expression, sorted and unique") {
  Expr e{{var(3), var(1), op(Op::Add), var(3), op(Op::Mul), num(2), op(Op::Pow)}};
  CHECK(expr_variables(e) == std::vector<uint32_t>{1, 3});
  CHECK(expr_variables(Expr{}).empty());
}

TEST_CASE("rendering puts parentheses only where precedence needs them") {
  const std::vector<std::string> names = {"a", "b", "c"};
  CHECK(render(Expr{{var(0), var(1), var(2), op(Op::Mul), op(Op::Add)}}, names) == "a + b*c");
  CHECK(render(Expr{{var(0), var(1), op(Op::Add), var(2), op(Op::Mul)}}, names) == "(a + b)*c");
  CHECK(render(Expr{{var(0), var(1), var(2), op(Op::Sub), op(Op::Sub)}}, names) == "a - (b - c)");
  CHECK(render(Expr{{var(0), var(1), op(Op::Sub), var(2), op(Op::Sub)}}, names) == "a - b - c");
  CHECK(render(Expr{{var(0), var(1), var(2), op(Op::Pow), op(Op::Pow)}}, names) == "a^(b^c)");  // explicit, though not needed
  CHECK(render(Expr{{var(0), var(1), op(Op::Pow), var(2), op(Op::Pow)}}, names) == "(a^b)^c");
  CHECK(render(Expr{{var(0), op(Op::Neg), num(2), op(Op::Pow)}}, names) == "(-a)^2");
  CHECK(render(Expr{{var(0), op(Op::Call, 1, uint32_t(Func::Sqrt))}}, names) == "sqrt(a)");
  CHECK(render(Expr{{num(1), var(0), var(1), op(Op::Lt), num(2), op(Op::Piecewise, 3)}}, names) ==
        "piecewise { 1 if a < b; 2 otherwise }");
  CHECK(render(Expr{{var(0), num(1), op(Op::Gt), var(1), num(0), op(Op::Le), op(Op::Not), op(Op::Or)}}, names) ==
        "a > 1 or not b <= 0");
  CHECK(render(Expr{{op(Op::Local)}}, names) == "_0");
  CHECK(render(Expr{{var(0), var(1)}}, names) == "<malformed>");
}

TEST_CASE("did you mean: closest names first, a tail match counts") {
  const std::vector<std::string> names = {"econ.cost.per_token", "econ.cost.total", "training.tokens", "x.per_token"};
  CHECK(closest_names("econ.cost.per_tokn", names, 1) == std::vector<std::string>{"econ.cost.per_token"});
  CHECK(did_you_mean("econ.cost.per_tokn", names) == "did you mean 'econ.cost.per_token'?");
  CHECK(did_you_mean("y.per_token", names) == "did you mean 'x.per_token' or 'econ.cost.per_token'?");
  CHECK(did_you_mean("zzzzzz", names).empty());
  CHECK(did_you_mean("a", {"b", "c", "d", "e"}) == "did you mean 'b', 'c' or 'd'?");
}
