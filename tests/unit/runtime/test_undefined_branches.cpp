// A division by zero in a branch a piecewise does not take must not stop the resolution.
#include <doctest/doctest.h>

#include "runtime/symbolic.h"

namespace {

// piecewise { 1/x if x != 0; 5 otherwise }, in the image's postfix form.
gs::Expr guarded_reciprocal() {
  using gs::Node;
  using gs::Op;
  return gs::Expr{{Node{Op::Num, 0, 0, 1}, Node{Op::Var, 0}, Node{Op::Div}, Node{Op::Var, 0}, Node{Op::Num, 0, 0, 0},
                   Node{Op::Ne}, Node{Op::Num, 0, 0, 5}, Node{Op::Piecewise, 0, 3}}};
}

double eval(const gs::Expr& e, double x) {
  std::vector<std::string> names{"x"};
  gs::sym::Symbols symbols(&names);
  auto built = gs::sym::build(e, [&](uint32_t) -> std::optional<GiNaC::ex> { return gs::sym::number(x); }, symbols);
  return gs::sym::to_double(built.value).value_or(-1);
}

}  // namespace

TEST_CASE("a piecewise guarding a division by zero takes its other branch") {
  CHECK(eval(guarded_reciprocal(), 0) == 5);
  CHECK(eval(guarded_reciprocal(), 4) == 0.25);
}

TEST_CASE("an unguarded division by zero gives no number") {
  gs::Expr e{{gs::Node{gs::Op::Num, 0, 0, 1}, gs::Node{gs::Op::Var, 0}, gs::Node{gs::Op::Div}}};
  std::vector<std::string> names{"x"};
  gs::sym::Symbols symbols(&names);
  auto built = gs::sym::build(e, [](uint32_t) -> std::optional<GiNaC::ex> { return gs::sym::number(0); }, symbols);
  CHECK_FALSE(gs::sym::to_double(built.value).has_value());
}
