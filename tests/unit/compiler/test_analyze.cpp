// Semantic checks: each rule gives its diagnostic code, location and message. The exact rendered text of
// every code is pinned in tests/diagnostics; these tests check the rules through the API.
#include <doctest/doctest.h>

#include "compiler/compile.h"
#include "helpers.h"

using namespace gs;
using namespace gs::testing;

TEST_CASE("unknown names suggest the closest visible ones") {
  auto d = first_error(
      "system t\nvar econ.cost.per_token : USD/token \"c\" foreign \"another system's name, for the test\"\nvar t.y : USD/token \"y\"\n"
      "eq e: t.y = econ.cost.per_tokn\n");
  CHECK(d.code == "E-UNKNOWN-NAME");
  CHECK(d.message == "unknown name 'econ.cost.per_tokn'");
  CHECK(d.hint == "did you mean 'econ.cost.per_token'?");
  CHECK(d.file == "t.gstack");
  CHECK(d.line == 4);
  CHECK(d.column == 13);
  CHECK(d.source_line == "eq e: t.y = econ.cost.per_tokn");
}

TEST_CASE("systems: use order, unknown systems, visibility") {
  std::vector<compiler::SourceFile> src;
  src.push_back(compiler::SourceFile::from_text("00_units.gstack", units_prelude()));
  src.push_back(compiler::SourceFile::from_text("a.gstack", "system a\nuse b\nvar a.x : m \"x\"\n"));
  src.push_back(compiler::SourceFile::from_text("b.gstack", "system b\nvar b.x : m \"x\"\n"));
  auto r = compiler::compile_sources(src);
  REQUIRE_FALSE(r.diagnostics.all().empty());
  CHECK(r.diagnostics.all()[0].code == "E-USE-ORDER");
  CHECK(r.diagnostics.all()[0].message == "system 'a' uses 'b', which is loaded after it");

  auto unknown = first_error("system t\nuse physiks\n", true);
  CHECK(unknown.code == "E-UNKNOWN-SYSTEM");
  CHECK(unknown.hint == "did you mean 'physics'?");

  auto hidden = first_error("system t\nvar t.x : m/s \"x\"\neq e: t.x = physics.speed_of_light\n", true);
  CHECK(hidden.code == "E-NOT-VISIBLE");
  CHECK(hidden.message == "'physics.speed_of_light' is declared in system 'physics', which 't' does not use");

  // `use` is transitive.
  src.clear();
  src.push_back(compiler::SourceFile::from_text("00_units.gstack", units_prelude()));
  src.push_back(compiler::SourceFile::from_text("a.gstack", "system a\nvar a.x : m \"x\"\n"));
  src.push_back(compiler::SourceFile::from_text("b.gstack", "system b\nuse a\nvar b.x : m \"x\"\n"));
  src.push_back(compiler::SourceFile::from_text("c.gstack", "system c\nuse b\nvar c.x : m \"x\"\neq e: c.x = a.x + b.x\n"));
  auto ok = compiler::compile_sources(src);
  INFO(ok.diagnostics.render_text());
  CHECK(ok.image.has_value());
}

TEST_CASE("a system cannot use itself") {
  auto d = first_error("system t\nuse t\n");
  CHECK(d.code == "E-USE-ORDER");
  CHECK(d.message == "system 't' uses itself");
}

TEST_CASE("duplicates name where the first declaration is") {
  auto v = first_error("system t\nvar t.x : m \"x\"\nvar t.x : s \"x again\"\n");
  CHECK(v.code == "E-DUPLICATE");
  CHECK(v.message == "variable 't.x' is already declared at t.gstack:2:5");
  auto r = first_error("system t\nref a \"one\"\nref a \"two\"\n");
  CHECK(r.message == "reference 'a' is already declared at t.gstack:2:5");
  auto rel = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\neq e: t.x = 1 [m]\neq e: t.y = 1 [m]\n");
  CHECK(rel.message == "relation 'e' is already declared at t.gstack:4:4");
  auto unit = first_error("system t\nunit m : length\n");
  CHECK(unit.message == "unit 'm' is already declared at 00_units.gstack:22:6");
  auto variant = first_error(
      "system t\nvar t.x : m \"x\"\nvariant a [k]: t.x = 1 [m]\nvariant b [k]: t.x = 2 [m]\n");
  CHECK(variant.code == "E-DUPLICATE");
  CHECK(variant.message == "variable 't.x' already has a variant keyed 'k' ('t.a')");
}

TEST_CASE("value relations need a bare, non-constant variable on the left") {
  auto lhs = first_error("system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\neq e: 2 * t.x = t.y\n");
  CHECK(lhs.code == "E-LHS-NOT-VARIABLE");
  CHECK(lhs.column == 9);  // the operator of the left side
  auto c = first_error("system t\nuse physics\neq e: physics.speed_of_light = 3 [m/s]\n", true);
  CHECK(c.code == "E-CONST-LHS");
  auto outside = first_error("system t\nconst t.k = 1 m \"k\" ref si_brochure\n");
  CHECK(outside.code == "E-CONST-OUTSIDE-PHYSICS");
  CHECK(outside.line == 2);
  CHECK(outside.column == 1);
}

TEST_CASE("relation forms, variant keys and validity") {
  auto key = first_error("system t\nvar t.x : m \"x\"\nvariant v: t.x = 1 [m]\n");
  CHECK(key.code == "E-VARIANT-KEY");
  CHECK(key.message == "variant 'v' has no key");
  auto extra_key = first_error("system t\nvar t.x : m \"x\"\neq e [k]: t.x = 1 [m]\n");
  CHECK(extra_key.code == "E-VARIANT-KEY");
  auto validity = first_error("system t\nvar t.x : m \"x\"\napprox a: t.x = 1 [m]\n");
  CHECK(validity.code == "E-VALIDITY");
  CHECK(validity.message == "approximation 'a' needs a validity condition");
  auto when = first_error("system t\nvar t.x : m \"x\"\neq e when t.x > 0 [m]: t.x = 1 [m]\n");
  CHECK(when.code == "E-VALIDITY");
  auto form = first_error("system t\nvar t.x : m \"x\"\neq e: t.x > 0 [m]\n");
  CHECK(form.code == "E-RELATION-FORM");
  CHECK(form.message == "'eq e' must have the form 'variable = expression'");
  auto ode = first_error("system t\nvar t.x : m \"x\"\node o: t.x = 1 [m]\n");
  CHECK(ode.message == "'ode o' must have the form 'derivative(variable, variable) = expression'");
}

TEST_CASE("identities: one per variable, no cycles") {
  auto two = first_error("system t\nvar t.x : m \"x\"\neq a: t.x = 1 [m]\neq b: t.x = 2 [m]\n");
  CHECK(two.code == "E-MULTIPLE-DEFINITION");
  CHECK(two.message == "'t.x' is defined by two identities, 't.a' and 't.b'");
  CHECK(two.hint == "turn them into variants with keys, e.g. 'variant b [key]: ...'");
  CHECK(two.line == 4);
  auto cycle = first_error(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\nvar t.z : m \"z\"\n"
      "eq a: t.x = t.y\neq b: t.y = t.z\neq c: t.z = t.x + 1 [m]\n");
  CHECK(cycle.code == "E-CYCLE");
  CHECK(cycle.message == "identity relations form a cycle: t.x -> t.y -> t.z -> t.x");
  // Variants and approximations may close a loop: the resolver picks one definition per variable.
  compile_ok(
      "system t\nvar t.x : m \"x\"\nvar t.y : m \"y\"\n"
      "eq a: t.x = t.y\napprox b when t.x > 0 [m]: t.y = t.x\n");
}

TEST_CASE("assumptions") {
  auto two_signs = first_error("system t\nvar t.x : m \"x\" assume positive, negative\n");
  CHECK(two_signs.code == "E-ASSUME");
  auto unknown = first_error("system t\nvar t.x : m \"x\" assume postive\n");
  CHECK(unknown.hint == "did you mean 'positive'?");
  auto no_bounds = first_error("system t\nvar t.x : m \"x\" assume range\n");
  CHECK(no_bounds.message == "'range' needs bounds: range(lo, hi)");
  auto reversed = first_error("system t\nvar t.x : m \"x\" assume range(2, 1)\n");
  CHECK(reversed.message == "range(lo, hi) needs lo <= hi");
  auto bounds = first_error("system t\nvar t.x : m \"x\" assume integer(1, 2)\n");
  CHECK(bounds.message == "'integer' takes no bounds");
}

TEST_CASE("references, units, dimensions, functions") {
  auto ref = first_error("system t\nvar t.x : m \"x\" ref si_brochur\n");
  CHECK(ref.code == "E-UNKNOWN-REF");
  CHECK(ref.hint == "did you mean 'si_brochure'?");
  auto unit = first_error("system t\nvar t.x : USD/(kWx*h) \"x\"\n");
  CHECK(unit.code == "E-UNIT-UNKNOWN");
  CHECK(unit.column == 16);  // at the bad name inside the unit
  auto dim = first_error("system t\nunit parsec : lenght\n");
  CHECK(dim.code == "E-UNKNOWN-DIMENSION");
  CHECK(dim.hint == "did you mean 'length'?");
  auto scale = first_error("system t\nunit nothing = 0 m\n");
  CHECK(scale.code == "E-UNIT-SCALE");
  auto fn = first_error("system t\nvar t.x : 1 \"x\"\neq e: t.x = sqroot(2)\n");
  CHECK(fn.code == "E-UNKNOWN-FUNCTION");
  CHECK(fn.hint == "did you mean 'sqrt'?");
  auto arity = first_error("system t\nvar t.x : 1 \"x\"\neq e: t.x = min(2)\n");
  CHECK(arity.code == "E-ARITY");
  CHECK(arity.message == "'min' takes at least 2 arguments, not 1");
  auto outside = first_error("system physics2\nconst physics.k = 1 m \"k\"\n");
  CHECK(outside.code == "E-CONST-OUTSIDE-PHYSICS");
  auto const_src = first_error("system physics\nconst physics.k = 1 m \"k\"\n");
  CHECK(const_src.code == "E-CONST-SOURCE");
  CHECK(const_src.message == "constant 'physics.k' needs a source (ref ...)");
}

TEST_CASE("diagnostics render with a caret under the column, counting characters not bytes") {
  auto r = compile_text("system t \"\xc3\xa9t\xc3\xa9\"\nvar t.x : m \"caf\xc3\xa9\" ref nope\n");
  REQUIRE_FALSE(r.image);
  const std::string text = r.diagnostics.render_text();
  CHECK(text ==
        "t.gstack:2:24: error[E-UNKNOWN-REF]: unknown reference 'nope'\n"
        "    var t.x : m \"caf\xc3\xa9\" ref nope\n"
        "                           ^\n");
  const std::string json = r.diagnostics.render_json();
  CHECK(json.find("\"code\": \"E-UNKNOWN-REF\"") != std::string::npos);
  CHECK(json.find("\"line\": 2") != std::string::npos);
  CHECK(json.find("\"column\": 24") != std::string::npos);
}

TEST_CASE("the shipped model compiles cleanly") {
  auto r = compiler::compile_paths({GSTACK_SOURCE_DIR "/model"});
  INFO(r.diagnostics.render_text());
  CHECK(r.image.has_value());
  CHECK(r.diagnostics.all().empty());
}

TEST_CASE("unreadable paths are reported as such") {
  auto r = compiler::compile_paths({GSTACK_SOURCE_DIR "/no/such/file.gstack"});
  CHECK(r.unreadable_input);
  REQUIRE(r.diagnostics.all().size() == 1);
  CHECK(r.diagnostics.all()[0].code == "E-READ");
  CHECK(r.diagnostics.all()[0].message == "cannot read file: no such file");
}

TEST_CASE("special files are refused before they are read") {
  // /dev/zero would never end; a directory named as a file is not a source; neither aborts.
  auto r = compiler::read_source("/dev/zero", 1 << 20);
  CHECK_FALSE(r.text.has_value());
  CHECK(r.error == "is not a regular file (a device, FIFO or socket)");
  r = compiler::read_source(GSTACK_SOURCE_DIR "/model", 1 << 20);
  CHECK(r.error == "is a directory, not a .gstack file");
  r = compiler::read_source(GSTACK_SOURCE_DIR "/model/00_units.gstack", 100);
  CHECK(r.error.rfind("file is too large", 0) == 0);
  r = compiler::read_source(GSTACK_SOURCE_DIR "/model/00_units.gstack", 1 << 20);
  REQUIRE(r.text.has_value());
  CHECK(r.text->rfind("///", 0) == 0);
}

TEST_CASE("only the first syntax error of a file is reported") {
  auto r = compiler::compile_sources({compiler::SourceFile::from_text("a.gstack", "system a\nvar a.x m \"x\"\nvar a.y : : \"y\"\n$ $ $\n")});
  REQUIRE(r.diagnostics.all().size() == 1);
  CHECK(r.diagnostics.all()[0].line == 2);
  CHECK(r.diagnostics.all()[0].message == "unexpected name 'm'; expected ':'");
}
