// Lowering: what the image holds for each kind of relation (postfix expressions, roles, kinds, ids).
#include <doctest/doctest.h>

#include "helpers.h"

using namespace gs;
using namespace gs::testing;

namespace {

std::vector<Op> ops(const Expr& e) {
  std::vector<Op> out;
  for (const auto& n : e.nodes) out.push_back(n.op);
  return out;
}

const char* kModel =
    "/// Test system.\n"
    "system t \"A test system\"\n"
    "ref r1 \"First source\" kind datasheet year 2023 at \"Table 2\"\n"
    "ref r2 \"Second source\"\n"
    "var t.a : m \"a\" ref r1 assume positive\n"
    "var t.b : m \"b\" ref r1, r2 assume nonnegative, integer\n"
    "var t.c : m \"c\" assume binary\n"
    "var t.d : 1 \"d\" assume range(0, 1)\n"
    "var t.f : m \"f\"\n"
    "var t.g : m \"g\"\n"
    "var t.time : s \"time\"\n"
    "var t.speed : m/s \"speed\"\n"
    "var t.ttf : s \"ttf\"\n"
    "var t.rate : 1/s \"rate\"\n"
    "var t.root : 1 \"root\"\n"
    "/// Sum of two lengths.\n"
    "eq sum: t.c = t.a * 2 + t.b \"the sum\" ref r2\n"
    "variant f_dense [dense]: t.f = t.a\n"
    "variant f_moe [moe]: t.f = t.b - 1 [cm]\n"
    "approx g_small when t.d < 0.5: t.g = -t.a\n"
    "constraint bounded: t.a + t.b <= 10 [m]\n"
    "iterate sqrt2: t.root = (k + 2/k)/2 over k from 1 times 6\n"
    "ode move: derivative(t.a, t.time) = t.speed\n"
    "stochastic fail: t.ttf ~ exponential(t.rate) mean 1 / t.rate\n"
    "eq pw: t.d = piecewise { 0 if t.a == t.b; 1 otherwise }\n";

}  // namespace

TEST_CASE("identity: postfix expression, refs, description from the declaration") {
  Image img = compile_ok(kModel);
  const Relation& r = rel(img, "t.sum");
  CHECK(r.role == Role::Identity);
  CHECK(r.kind == Kind::Algebraic);
  CHECK(r.lhs_var == int32_t(var_id(img, "t.c")));
  CHECK(ops(r.rhs) == std::vector<Op>{Op::Var, Op::Num, Op::Mul, Op::Var, Op::Add});
  CHECK(r.rhs.nodes[0].index == var_id(img, "t.a"));
  CHECK(r.rhs.nodes[1].value == 2);
  CHECK(r.rhs.nodes[3].index == var_id(img, "t.b"));
  CHECK(r.description == "the sum");
  REQUIRE(r.refs.size() == 1);
  CHECK(img.refs[r.refs[0]].name == "r2");
  CHECK(r.span.line == 17);
  CHECK(r.span.column == 1);  // the keyword, not the doc comment above it
  CHECK(img.files[r.span.file] == "t.gstack");
  CHECK(render(r.rhs, var_names(img)) == "t.a*2 + t.b");
}

TEST_CASE("variants keep their keys; approximations their validity") {
  Image img = compile_ok(kModel);
  const Relation& dense = rel(img, "t.f_dense");
  CHECK(dense.role == Role::Variant);
  CHECK(dense.variant_key == "dense");
  const Relation& moe = rel(img, "t.f_moe");
  CHECK(moe.variant_key == "moe");
  CHECK(ops(moe.rhs) == std::vector<Op>{Op::Var, Op::Num, Op::Sub});
  CHECK(moe.rhs.nodes[1].value == doctest::Approx(0.01));  // 1 cm in metres
  const Relation& g = rel(img, "t.g_small");
  CHECK(g.role == Role::Approximation);
  CHECK(ops(g.validity) == std::vector<Op>{Op::Var, Op::Num, Op::Lt});
  CHECK(ops(g.rhs) == std::vector<Op>{Op::Var, Op::Neg});
}

TEST_CASE("constraints keep both sides and the comparison") {
  Image img = compile_ok(kModel);
  const Relation& c = rel(img, "t.bounded");
  CHECK(c.role == Role::Constraint);
  CHECK(c.kind == Kind::Inequality);
  CHECK(c.lhs_var == -1);
  CHECK(c.compare == Op::Le);
  CHECK(ops(c.lhs) == std::vector<Op>{Op::Var, Op::Var, Op::Add});
  CHECK(ops(c.rhs) == std::vector<Op>{Op::Num});
  CHECK(c.rhs.nodes[0].value == 10);
}

TEST_CASE("iterative, differential, stochastic and piecewise relations") {
  Image img = compile_ok(kModel);
  const Relation& it = rel(img, "t.sqrt2");
  CHECK(it.role == Role::Identity);
  CHECK(it.kind == Kind::Iterative);
  CHECK(ops(it.rhs) == std::vector<Op>{Op::Local, Op::Num, Op::Local, Op::Div, Op::Add, Op::Num, Op::Div});
  CHECK(ops(it.initial) == std::vector<Op>{Op::Num});
  CHECK(it.iterations.nodes.at(0).value == 6);

  const Relation& ode = rel(img, "t.move");
  CHECK(ode.role == Role::Differential);
  CHECK(ode.kind == Kind::Differential);
  CHECK(ode.lhs_var == int32_t(var_id(img, "t.a")));
  CHECK(ode.indep_var == int32_t(var_id(img, "t.time")));
  CHECK(ode.order == 1);

  const Relation& st = rel(img, "t.fail");
  CHECK(st.role == Role::Stochastic);
  CHECK(st.kind == Kind::Stochastic);
  CHECK(st.distribution == "exponential");
  REQUIRE(st.parameters.size() == 1);
  CHECK(ops(st.parameters[0]) == std::vector<Op>{Op::Var});
  CHECK(ops(st.rhs) == std::vector<Op>{Op::Num, Op::Var, Op::Div});

  const Relation& pw = rel(img, "t.pw");
  CHECK(pw.kind == Kind::Piecewise);
  CHECK(ops(pw.rhs) == std::vector<Op>{Op::Num, Op::Var, Op::Var, Op::Eq, Op::Num, Op::Piecewise});
  CHECK(pw.rhs.nodes.back().count == 3);
}

TEST_CASE("calls record the function and the argument count") {
  Image img = compile_ok(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\n"
      "eq e: t.y = max(t.x, 1 [m], sqrt(t.x * t.x))\n");
  const Relation& r = rel(img, "t.e");
  const Node& sqrt = r.rhs.nodes.at(5);
  CHECK(sqrt.op == Op::Call);
  CHECK(Func(sqrt.index) == Func::Sqrt);
  CHECK(sqrt.count == 1);
  const Node& mx = r.rhs.nodes.back();
  CHECK(mx.op == Op::Call);
  CHECK(Func(mx.index) == Func::Max);
  CHECK(mx.count == 3);
  CHECK(render(r.rhs, var_names(img)) == "max(t.x, 1, sqrt(t.x*t.x))");
}

TEST_CASE("variables: system, description, doc, refs, assumptions, spans") {
  Image img = compile_ok(kModel);
  CHECK(img.systems.back().name == "t");
  CHECK(img.systems.back().description == "A test system");
  const Variable& a = var(img, "t.a");
  CHECK(img.systems[a.system].name == "t");
  CHECK(a.assume.sign == Sign::Positive);
  CHECK(a.refs.size() == 1);
  CHECK(a.span.line == 5);
  CHECK(a.span.column == 5);
  const Variable& b = var(img, "t.b");
  CHECK(b.assume.sign == Sign::Nonnegative);
  CHECK(b.assume.integer);
  CHECK(b.refs.size() == 2);
  const Variable& c = var(img, "t.c");
  CHECK(c.assume.binary);
  CHECK(c.assume.integer);
  const Variable& d = var(img, "t.d");
  CHECK(d.assume.has_range);
  CHECK(d.assume.hi == 1);
  const Reference& r1 = img.refs.at(a.refs[0]);
  CHECK(r1.kind == "datasheet");
  CHECK(r1.year == 2023);
  CHECK(r1.locator == "Table 2");
  CHECK(img.refs.at(b.refs[1]).kind == "paper");  // the default kind
}

TEST_CASE("constants: value in base units, only in physics") {
  Image img = compile_ok("system t\nuse physics\nvar t.e : J \"e\"\neq e: t.e = physics.boltzmann * 300 [K]\n", true);
  const Variable& kb = var(img, "physics.boltzmann");
  CHECK(kb.is_constant);
  CHECK(kb.value == doctest::Approx(1.380649e-23));
  const Variable& c = var(img, "physics.speed_of_light");
  CHECK(c.value == 299792458);
  const Variable& g = var(img, "physics.standard_gravity");
  CHECK(g.unit == "m/s^2");
}

TEST_CASE("adjacency: dependencies, definitions and uses") {
  Image img = compile_ok(kModel);
  const uint32_t a = var_id(img, "t.a"), c = var_id(img, "t.c"), f = var_id(img, "t.f");
  uint32_t sum = 0;
  for (uint32_t i = 0; i < img.relations.size(); ++i)
    if (img.relations[i].name == "t.sum") sum = i;
  std::vector<uint32_t> deps(img.relation_deps.begin(sum), img.relation_deps.end(sum));
  CHECK(deps == std::vector<uint32_t>{a, var_id(img, "t.b")});
  CHECK(std::vector<uint32_t>(img.defined_by.begin(c), img.defined_by.end(c)) == std::vector<uint32_t>{sum});
  CHECK(img.defined_by.size(f) == 2);  // two variants
  CHECK(img.used_in.size(a) >= 3);
}
