// The parser: every construct of docs/language.md reaches the AST with its parts and locations.
#include <doctest/doctest.h>

#include <memory>

#include "compiler/ast.h"
#include "helpers.h"

using namespace gs;
using namespace gs::compiler;

namespace {

struct Parsed {
  SourceFile src;
  Diagnostics diags;
  std::optional<AFile> file;
};

// The SourceFile must outlive the AST's locations, so parse into a heap object that owns both.
std::unique_ptr<Parsed> parse(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->src = SourceFile::from_text("p.gstack", text);
  p->file = parse_file(p->src, p->diags);
  return p;
}

const ADecl& decl_named(const AFile& f, const std::string& name) {
  for (const auto& d : f.decls)
    if (d.name == name) return d;
  throw std::runtime_error("no declaration " + name);
}

}  // namespace

TEST_CASE("system header: doc, description, uses") {
  auto p = parse("/// First line.\n/// Second line.\nsystem econ \"Money\"\nuse a, b\nuse c\n");
  REQUIRE(p->file);
  CHECK(p->file->system == "econ");
  CHECK(p->file->system_description == "Money");
  CHECK(p->file->system_doc == "First line.\nSecond line.");
  CHECK(p->file->system_at.line == 3);
  CHECK(p->file->system_at.column == 8);
  REQUIRE(p->file->uses.size() == 3);
  CHECK(p->file->uses[1].name == "b");
  CHECK(p->file->uses[1].at.line == 4);
  CHECK(p->file->uses[1].at.column == 8);
  CHECK(p->file->uses[2].name == "c");
}

TEST_CASE("dimensions, units and prefixes") {
  auto p = parse(
      "system u\n"
      "dimension length \"Length\"\n"
      "unit m : length \"metre\"\n"
      "unit J = kg*m^2/s^2 \"joule\"\n"
      "unit h = 3600 s \"hour\"\n"
      "unit GPU = 1 \"count\"\n"
      "unit tiny = -2 \"negative scale\"\n"
      "prefix k = 1e3\n"
      "prefix Gi = 1073741824\n");
  REQUIRE(p->file);
  const auto& f = *p->file;
  CHECK(decl_named(f, "length").k == ADecl::K::Dimension);
  CHECK(decl_named(f, "length").description == "Length");
  const auto& m = decl_named(f, "m");
  CHECK(m.k == ADecl::K::Unit);
  CHECK(m.base_dim == "length");
  CHECK(m.base_at.column == 10);
  const auto& j = decl_named(f, "J");
  REQUIRE(j.unit);
  CHECK(j.unit->text == "kg*m^2/s^2");
  CHECK(j.scale == 1);
  const auto& h = decl_named(f, "h");
  CHECK(h.scale == 3600);
  CHECK(h.unit->text == "s");
  CHECK(decl_named(f, "GPU").scale == 1);
  CHECK(decl_named(f, "tiny").scale == -2);
  CHECK(decl_named(f, "k").k == ADecl::K::Prefix);
  CHECK(decl_named(f, "k").scale == 1000);
  CHECK(decl_named(f, "Gi").scale == 1073741824.0);
}

TEST_CASE("references with every field, and escapes in strings") {
  auto p = parse(
      "system r\n"
      "ref codata \"CODATA \\\"2018\\\"\" kind standard url \"https://x\" year 2019 at \"Table 1\"\n"
      "ref bare \"Just a citation\"\n");
  REQUIRE(p->file);
  const auto& c = decl_named(*p->file, "codata");
  CHECK(c.k == ADecl::K::Ref);
  CHECK(c.citation == "CODATA \"2018\"");
  CHECK(c.ref_kind == "standard");
  CHECK(c.url == "https://x");
  CHECK(c.year == 2019);
  CHECK(c.locator == "Table 1");
  const auto& b = decl_named(*p->file, "bare");
  CHECK(b.ref_kind.empty());
  CHECK(b.year == 0);
}

TEST_CASE("variables and constants") {
  auto p = parse(
      "system v\n"
      "/// The tariff.\n"
      "var econ.power.price_kwh : USD/(kW*h) \"Tariff\"\n"
      "    ref eia assume positive\n"
      "var par.n_gpus : GPU \"GPUs\" ref a, b assume positive, integer\n"
      "var training.overhead : 1 \"Share\" assume range(0, 1)\n"
      "var x.neg : m assume range(-2.5, -1)\n"
      "const physics.c = 299792458 m/s \"Speed of light\" ref codata\n");
  REQUIRE(p->file);
  const auto& f = *p->file;
  const auto& price = decl_named(f, "econ.power.price_kwh");
  CHECK(price.k == ADecl::K::Var);
  CHECK(price.unit->text == "USD/(kW*h)");
  CHECK(price.description == "Tariff");
  CHECK(price.doc == "The tariff.");
  CHECK(price.at.line == 3);
  CHECK(price.at.column == 5);
  // The declaration's location is its keyword, not the doc comment above it.
  CHECK(price.keyword_at.line == 3);
  CHECK(price.keyword_at.column == 1);
  REQUIRE(price.refs.size() == 1);
  CHECK(price.refs[0].name == "eia");
  CHECK(price.refs[0].at.line == 4);
  REQUIRE(price.assumptions.size() == 1);
  CHECK(price.assumptions[0].name == "positive");
  const auto& n = decl_named(f, "par.n_gpus");
  CHECK(n.refs.size() == 2);
  REQUIRE(n.assumptions.size() == 2);
  CHECK(n.assumptions[1].name == "integer");
  const auto& o = decl_named(f, "training.overhead");
  CHECK(o.unit->text == "1");
  REQUIRE(o.assumptions.size() == 1);
  CHECK(o.assumptions[0].name == "range");
  CHECK(*o.assumptions[0].lo == 0);
  CHECK(*o.assumptions[0].hi == 1);
  const auto& neg = decl_named(f, "x.neg");
  CHECK(*neg.assumptions[0].lo == -2.5);
  CHECK(*neg.assumptions[0].hi == -1);
  const auto& c = decl_named(f, "physics.c");
  CHECK(c.k == ADecl::K::Const);
  CHECK(c.value == 299792458);
  CHECK(c.unit->text == "m/s");
}

TEST_CASE("every relation head and body form") {
  auto p = parse(
      "system s\n"
      "eq e1: a.x = a.y / a.z \"identity\" ref r1\n"
      "variant v1 [dense]: a.f = a.g\n"
      "approx ap when a.d <= 1: a.c = a.d / a.e\n"
      "constraint c1: a.u <= 1\n"
      "iterate it: a.root = (k + 2/k)/2 over k from 1 times 6\n"
      "ode od: derivative(a.t_die, a.time) = a.heat / a.cap\n"
      "ode od2: derivative(a.x, a.time, 2) = a.acc\n"
      "stochastic st: a.ttf ~ exponential(a.rate) mean 1 / a.rate\n"
      "stochastic st2: a.n ~ normal(a.mu, a.sigma)\n");
  REQUIRE(p->file);
  const auto& f = *p->file;
  const auto& e1 = decl_named(f, "e1");
  CHECK(e1.head == Head::Eq);
  CHECK(e1.body == ADecl::Body::Equation);
  CHECK(e1.lhs->k == AExpr::K::Ref);
  CHECK(e1.lhs->text == "a.x");
  CHECK(e1.rhs->k == AExpr::K::Binary);
  CHECK(e1.rhs->op == Op::Div);
  CHECK(e1.description == "identity");
  CHECK(e1.refs.size() == 1);
  const auto& v1 = decl_named(f, "v1");
  CHECK(v1.head == Head::Variant);
  REQUIRE(v1.variant_key);
  CHECK(v1.variant_key->name == "dense");
  const auto& ap = decl_named(f, "ap");
  CHECK(ap.head == Head::Approx);
  REQUIRE(ap.validity);
  CHECK(ap.validity->op == Op::Le);
  const auto& c1 = decl_named(f, "c1");
  CHECK(c1.head == Head::Constraint);
  CHECK(c1.body == ADecl::Body::Condition);
  CHECK(c1.cond->op == Op::Le);
  const auto& it = decl_named(f, "it");
  CHECK(it.head == Head::Iterate);
  CHECK(it.body == ADecl::Body::Iterate);
  CHECK(it.binder == "k");
  CHECK(it.initial->number == 1);
  CHECK(it.count->number == 6);
  const auto& od = decl_named(f, "od");
  CHECK(od.body == ADecl::Body::Differential);
  CHECK(od.target->name == "a.t_die");
  CHECK(od.indep->name == "a.time");
  CHECK(od.order == 1);
  CHECK(decl_named(f, "od2").order == 2);
  const auto& st = decl_named(f, "st");
  CHECK(st.body == ADecl::Body::Stochastic);
  CHECK(st.distribution == "exponential");
  REQUIRE(st.dist_params.size() == 1);
  CHECK(st.dist_params[0].text == "a.rate");
  REQUIRE(st.mean);
  CHECK(st.mean->op == Op::Div);
  const auto& st2 = decl_named(f, "st2");
  CHECK(st2.dist_params.size() == 2);
  CHECK_FALSE(st2.mean);
}

TEST_CASE("expressions: precedence, associativity, calls, quantities, piecewise, logic") {
  auto p = parse(
      "system s\n"
      "eq a: x.a = 1 + 2 * 3\n"
      "eq b: x.b = 2 ^ 3 ^ 2\n"
      "eq c: x.c = -x.y ^ 2\n"
      "eq d: x.d = max(x.p, x.q, 3) + sqrt(x.r)\n"
      "eq e: x.e = 3600 [s] * 1 [kW*h]\n"
      "eq f: x.f = piecewise { 0 if x.n == 1; x.n - 1 if x.n > 1 and not x.n > 9; x.n otherwise }\n"
      "eq g: x.g = (x.a - x.b) - x.c\n"
      "constraint h: x.a < 1 or x.b >= 2\n"
      "eq i: x.i = +x.j\n");
  REQUIRE(p->file);
  const auto& f = *p->file;
  const AExpr& a = *decl_named(f, "a").rhs;  // 1 + (2 * 3)
  CHECK(a.op == Op::Add);
  CHECK(a.kids[1].op == Op::Mul);
  CHECK(a.at.column == 15);  // a binary node sits at its operator
  CHECK(a.begin.column == 13);
  const AExpr& b = *decl_named(f, "b").rhs;  // 2 ^ (3 ^ 2)
  CHECK(b.op == Op::Pow);
  CHECK(b.kids[0].k == AExpr::K::Num);
  CHECK(b.kids[1].op == Op::Pow);
  const AExpr& c = *decl_named(f, "c").rhs;  // -(x.y ^ 2)
  CHECK(c.k == AExpr::K::Neg);
  CHECK(c.kids[0].op == Op::Pow);
  const AExpr& d = *decl_named(f, "d").rhs;
  CHECK(d.kids[0].k == AExpr::K::Call);
  CHECK(d.kids[0].text == "max");
  CHECK(d.kids[0].kids.size() == 3);
  CHECK(d.kids[1].text == "sqrt");
  const AExpr& e = *decl_named(f, "e").rhs;
  CHECK(e.kids[0].k == AExpr::K::Quantity);
  CHECK(e.kids[0].number == 3600);
  CHECK(e.kids[0].text == "s");
  CHECK(e.kids[1].text == "kW*h");
  CHECK(e.kids[1].unit_at.column == 27);
  const AExpr& pw = *decl_named(f, "f").rhs;
  CHECK(pw.k == AExpr::K::Piecewise);
  REQUIRE(pw.kids.size() == 5);  // value, cond, value, cond, otherwise
  CHECK(pw.kids[1].op == Op::Eq);
  CHECK(pw.kids[3].op == Op::And);
  CHECK(pw.kids[3].kids[1].k == AExpr::K::Not);
  CHECK(pw.kids[4].text == "x.n");
  const AExpr& g = *decl_named(f, "g").rhs;  // parentheses leave no node of their own
  CHECK(g.op == Op::Sub);
  CHECK(g.kids[0].op == Op::Sub);
  CHECK(decl_named(f, "h").cond->op == Op::Or);
  CHECK(decl_named(f, "i").rhs->k == AExpr::K::Ref);  // unary plus disappears
}

TEST_CASE("comments are skipped and keywords may be parts of dotted names") {
  auto p = parse(
      "# a comment\n"
      "system s // another\n"
      "var physical.eq.elmore_delay : s \"d\" # trailing\n"
      "eq e: physical.eq.elmore_delay = 1 [s]\n");
  REQUIRE(p->file);
  CHECK(decl_named(*p->file, "physical.eq.elmore_delay").k == ADecl::K::Var);
}

TEST_CASE("unit text is exact even after non-ASCII text earlier in the file") {
  // Token positions count code points; the unit text used to be cut from the byte string with them.
  auto p = parse("system s \"caf\xc3\xa9 \xe2\x80\x94 \xc2\xb5\"\nvar a.x : USD/(kW*h) \"\xc2\xb5s\"\n");
  REQUIRE(p->file);
  CHECK(decl_named(*p->file, "a.x").unit->text == "USD/(kW*h)");
}

TEST_CASE("syntax errors are reported with a location and stop the file") {
  auto p = parse("system s\nvar a.x m\n");
  CHECK_FALSE(p->file);
  REQUIRE_FALSE(p->diags.all().empty());
  const auto& d = p->diags.all().front();
  CHECK(d.code == "E-SYNTAX");
  CHECK(d.line == 2);
  CHECK(d.column == 9);
  CHECK(d.source_line == "var a.x m");
}

TEST_CASE("a stray character is a syntax error") {
  auto p = parse("system s\neq e: a.x = a.y $ 2\n");
  CHECK_FALSE(p->file);
  CHECK(p->diags.all().front().code == "E-SYNTAX");
  CHECK(p->diags.all().front().column == 17);
}

TEST_CASE("invalid UTF-8 is refused at the offending character") {
  auto p = parse("system s\n# caf\xc3\xa9 \xff\n");
  CHECK_FALSE(p->file);
  REQUIRE(p->diags.all().size() == 1);
  CHECK(p->diags.all()[0].code == "E-ENCODING");
  CHECK(p->diags.all()[0].line == 2);
  CHECK(p->diags.all()[0].column == 8);
  // Overlong forms and surrogates are not UTF-8 either.
  CHECK_FALSE(parse("system s # \xc0\xaf\n")->file);
  CHECK_FALSE(parse("system s # \xed\xa0\x80\n")->file);
  CHECK_FALSE(parse("system s # \xe2\x80\n")->file);  // cut short
  CHECK(parse("system s # \xf0\x9f\x98\x80\n")->file);     // a four-byte character is fine
}

TEST_CASE("nesting limits turn pathological input into a diagnostic") {
  auto nested = [](const std::string& open, const std::string& close, int n) {
    std::string s = "system s\neq e: a.x = ";
    for (int i = 0; i < n; ++i) s += open;
    s += "1";
    for (int i = 0; i < n; ++i) s += close;
    return s + "\n";
  };
  CHECK(parse(nested("(", ")", 200))->file);
  for (auto [open, close] : {std::pair{"(", ")"}, {"-", ""}, {"not ", ""}, {"2^", ""}}) {
    CAPTURE(open);
    auto p = parse(nested(open, close, 100000));
    CHECK_FALSE(p->file);
    REQUIRE_FALSE(p->diags.all().empty());
    CHECK(p->diags.all().front().code == "E-NESTING");
    CHECK(p->diags.all().front().line == 2);
  }
  // A long chain of left-associative operators is parsed by a loop but makes a deep tree.
  std::string chain = "system s\neq e: a.x = 1";
  for (int i = 0; i < 100000; ++i) chain += "+1";
  auto p = parse(chain + "\n");
  CHECK_FALSE(p->file);
  REQUIRE_FALSE(p->diags.all().empty());
  CHECK(p->diags.all().front().code == "E-NESTING");
  // Powers in separate declarations do not add up.
  std::string many = "system s\n";
  for (int i = 0; i < 400; ++i) many += "eq e" + std::to_string(i) + ": a.x = a.y^2\n";
  CHECK(parse(many)->file);
}
