// Namespaces, `export` and relation templates: what the compiler accepts and what reaches the image. What
// it refuses is pinned by tests/diagnostics (64_* to 71_*, 104_* to 109_*).
#include <doctest/doctest.h>

#include "helpers.h"

using namespace gs;
using namespace gs::testing;

TEST_CASE("a system's variables carry the prefix it declares (104_namespace_prefix: not its name)") {
  Image img = compile_ok("system economics prefix econ\nvar econ.price : USD \"price\"\n");
  CHECK(var(img, "econ.price").unit == "USD");
}

TEST_CASE("foreign keeps a name outside the namespace (105_foreign_needs_reason: with a reason)") {
  Image img = compile_ok("system t\nvar other.kept : m \"kept\" foreign \"presets name it\"\nvar t.x : m \"x\"\neq x: t.x = other.kept\n");
  CHECK(var(img, "other.kept").system == img.systems.size() - 1);
}

TEST_CASE("exports are checked names, stored in declaration order with their role, label and text") {
  Image img = compile_ok(
      "system t\n"
      "var t.cost : USD \"cost\"\n"
      "var t.tokens : token \"tokens\"\n"
      "export headline cost = t.cost \"Cost of the run\"\n"
      "export input t.tokens\n"
      "export input t.cost\n");
  REQUIRE(img.exports.size() == 3);
  CHECK(img.exports[0].role == "headline");
  CHECK(img.exports[0].label == "cost");
  CHECK(img.exports[0].description == "Cost of the run");
  CHECK(img.exports[0].var == var_id(img, "t.cost"));
  CHECK(img.exports[0].span.line == 4);
  CHECK(img.exports[1].var == var_id(img, "t.tokens"));
  CHECK(img.exports[2].label.empty());
  Image back = read_image(write_image(img));
  CHECK(back.exports == img.exports);
}

TEST_CASE("an instance expands to the same relations as writing them out") {
  const std::string vars =
      "system t\n"
      "var t.m : 1 \"rows\"\nvar t.n : 1 \"cols\"\nvar t.k : 1 \"depth\"\n";
  Image by_hand = compile_ok(vars +
      "var t.a.flops : FLOP \"FLOPs of A\"\n"
      "eq a_flops: t.a.flops = 2 [FLOP] * t.m * t.n * t.k \"two per MAC\"\n");
  Image templated = compile_ok(vars +
      "template gemm(g, M, N, K, what) {\n"
      "    var g.flops : FLOP \"FLOPs of {what}\"\n"
      "    eq flops: g.flops = 2 [FLOP] * M * N * K \"two per MAC\"\n"
      "}\n"
      "instance a = gemm(g: t.a, M: t.m, N: t.n, K: t.k, what: \"A\")\n");
  const Relation& x = rel(by_hand, "t.a_flops");
  const Relation& y = rel(templated, "t.a_flops");
  CHECK(x.rhs == y.rhs);
  CHECK(x.lhs_var == y.lhs_var);
  CHECK(var(templated, "t.a.flops").description == "FLOPs of A");
  CHECK(var(templated, "t.a.flops").dim == var(by_hand, "t.a.flops").dim);
}

TEST_CASE("an argument may be an expression; it replaces the parameter as a whole") {
  Image img = compile_ok(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\n"
      "template twice(out, v) {\n    var out.twice : m \"twice\"\n    eq twice: out.twice = 2 * v\n}\n"
      "instance s = twice(out: t.s, v: t.x + t.y)\n");
  // 2 * (x + y): the sum stays one operand of the product.
  const auto& nodes = rel(img, "t.s_twice").rhs.nodes;
  REQUIRE(nodes.size() == 5);
  CHECK(nodes[0].op == Op::Num);
  CHECK(nodes[3].op == Op::Add);
  CHECK(nodes[4].op == Op::Mul);
}

TEST_CASE("a whole system may be foreign: a test model that borrows the real model's names (106_*: with a reason)") {
  Image img = compile_ok("system mini foreign \"keeps the real names\"\nvar arch.params : 1 \"p\"\nvar econ.cost : USD \"c\"\n");
  CHECK(var(img, "arch.params").system == img.systems.size() - 1);
}
