// Built-in math constants: `math.pi` and `math.e` lower to the same number a model used to type out,
// need no `use`. A misspelt constant and a declaration into the math namespace are diagnostics cases
// (tests/diagnostics/63_*, 64_*, 110_*).
#include <doctest/doctest.h>

#include <numbers>

#include "helpers.h"

using namespace gs;
using namespace gs::testing;

TEST_CASE("math.pi and math.e lower to the nearest doubles, exactly as the typed-out literals do") {
  Image img = compile_ok(
      "system t\n"
      "var t.r : m \"radius\"\n"
      "var t.area : m^2 \"area\"\n"
      "var t.area_typed : m^2 \"area, pi typed out\"\n"
      "var t.growth : 1 \"e\"\n"
      "eq area: t.area = math.pi * t.r ^ 2\n"
      "eq area_typed: t.area_typed = 3.141592653589793 * t.r ^ 2\n"
      "eq growth: t.growth = math.e\n");
  const Relation& a = rel(img, "t.area");
  const Relation& typed = rel(img, "t.area_typed");
  REQUIRE(a.rhs.nodes.size() == 5);
  CHECK(a.rhs.nodes[0].op == Op::Num);
  CHECK(a.rhs.nodes[0].value == std::numbers::pi);  // bit-identical, not merely close
  CHECK(a.rhs.nodes == typed.rhs.nodes);
  CHECK(rel(img, "t.growth").rhs.nodes[0].value == std::numbers::e);
  CHECK(std::numbers::e == doctest::Approx(2.718281828459045).epsilon(1e-15));
}
