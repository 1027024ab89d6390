#include <doctest/doctest.h>

#include "tests/unit/support/model_fixture.h"

TEST_CASE("variant keys may be language keywords") {
  auto img = gs::testing::compile_with_units(R"(
system t
ref r "test"
var t.x : 1 "x" ref r
var t.y : 1 "y" ref r
variant exact [stochastic]: t.x = t.y ref r
variant rough [when]: t.x = 2 * t.y ref r
variant sched [1f1b]: t.x = 3 * t.y ref r
)");
  REQUIRE(img.relations.size() == 3);
  CHECK(img.relations[2].variant_key == "1f1b");
  CHECK(img.relations[0].variant_key == "stochastic");
  CHECK(img.relations[1].variant_key == "when");
}
