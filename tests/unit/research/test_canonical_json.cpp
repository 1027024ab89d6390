// Canonical JSON: the byte form every hash is taken over.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "runtime/research/canonical_json.h"

using gs::research::canonical_dump;
using gs::research::format_double;
using gs::research::Json;
using gs::research::pretty_dump;

TEST_CASE("doubles are written as Python's repr writes them") {
  CHECK(format_double(0.95) == "0.95");
  CHECK(format_double(0.1) == "0.1");
  CHECK(format_double(1.0) == "1.0");
  CHECK(format_double(-2.5) == "-2.5");
  CHECK(format_double(500000000000000.0) == "500000000000000.0");
  CHECK(format_double(1e15) == "1000000000000000.0");
  CHECK(format_double(1e16) == "1e+16");
  CHECK(format_double(1.68e18) == "1.68e+18");
  CHECK(format_double(3e-13) == "3e-13");
  CHECK(format_double(5e-10) == "5e-10");
  CHECK(format_double(1e-05) == "1e-05");
  CHECK(format_double(0.0001) == "0.0001");
  CHECK(format_double(123.456) == "123.456");
  CHECK(format_double(0.0) == "0.0");
  CHECK(format_double(-0.0) == "-0.0");
  CHECK(format_double(2.0 / 3.0) == "0.6666666666666666");
  CHECK_THROWS(format_double(std::numeric_limits<double>::quiet_NaN()));
  CHECK_THROWS(format_double(std::numeric_limits<double>::infinity()));
}

TEST_CASE("keys are sorted, separators compact, text ASCII") {
  Json j = {{"b", 1}, {"a", {{"z", true}, {"y", nullptr}}}, {"c", "caf\xc3\xa9 \xf0\x9f\x98\x80\n"}, {"d", {1.5, -3}}};
  CHECK(canonical_dump(j) == R"({"a":{"y":null,"z":true},"b":1,"c":"caf\u00e9 \ud83d\ude00\n","d":[1.5,-3]})");
  CHECK(pretty_dump(Json{{"k", Json::array()}, {"m", Json::object()}, {"x", {1}}}) == "{\n  \"k\": [],\n  \"m\": {},\n  \"x\": [\n    1\n  ]\n}\n");
}

TEST_CASE("the canonical hash is SHA-256 of the canonical bytes") {
  // sha256 of the ASCII text {"a":1}
  CHECK(gs::research::canonical_sha256(Json{{"a", 1}}) == "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
}
