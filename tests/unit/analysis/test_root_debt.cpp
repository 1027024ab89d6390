// Blast radius and families on a model small enough to count by hand:
//
//   a, b -> x = a + b -> y = 2x -> z = y + c        constraint: c <= a
//
// a and b each reach x, y, z (3); c reaches z (1). Following the constraint, a also reaches c (and
// through it z, already counted): 4.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "runtime/analysis/root_debt.h"
#include "runtime/present/analysis.h"
#include "support.h"

using namespace gs;
using namespace gs::testing;

namespace {

const char* kModel = R"(system t "Root-debt test model"
ref n "Synthetic relations for the analysis tests" kind memo
var t.p.a : m "a" ref n
var t.p.b : m "b" ref n
var t.q.c : m "c" ref n
var t.r.x : m "x" ref n
var t.r.y : m "y" ref n
var t.r.z : m "z" ref n
eq ex: t.r.x = t.p.a + t.p.b ref n
eq ey: t.r.y = 2 * t.r.x ref n
eq ez: t.r.z = t.r.y + t.q.c ref n
constraint cb: t.q.c <= t.p.a ref n
)";

const Registry& small() {
  static Registry reg(compile_model(kModel));
  return reg;
}

size_t weight(const Registry& reg, const std::vector<RootDebtRow>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (reg.var(r.var).name == name) return r.dependents;
  FAIL("no row " << name);
  return 0;
}

}  // namespace

TEST_CASE("blast radius: transitive dependents, heaviest first, ties by name") {
  const auto& reg = small();
  auto rows = root_debt_rows(reg, Graph(reg));
  REQUIRE(rows.size() == 3);
  CHECK(reg.var(rows[0].var).name == "t.p.a");
  CHECK(reg.var(rows[1].var).name == "t.p.b");
  CHECK(reg.var(rows[2].var).name == "t.q.c");
  CHECK(weight(reg, rows, "t.p.a") == 3);
  CHECK(weight(reg, rows, "t.p.b") == 3);
  CHECK(weight(reg, rows, "t.q.c") == 1);
  CHECK(rows[0].family == "t.p");
  CHECK(rows[0].boundary_category == "primitive-root");
  CHECK(rows[0].primitive_boundary);

  auto with = root_debt_rows(reg, Graph(reg, true));
  CHECK(weight(reg, with, "t.p.a") == 4);
  CHECK(weight(reg, with, "t.p.b") == 3);
  CHECK(weight(reg, with, "t.q.c") == 1);
}

TEST_CASE("families sum their members' weights") {
  const auto& reg = small();
  auto fams = root_families(reg, root_debt_rows(reg, Graph(reg)));
  REQUIRE(fams.size() == 2);
  CHECK(fams[0].family == "t.p");
  CHECK(fams[0].total_weight == 6);
  REQUIRE(fams[0].members.size() == 2);
  CHECK(reg.var(fams[0].members[0].var).name == "t.p.a");
  CHECK(fams[1].family == "t.q");
  CHECK(fams[1].total_weight == 1);
  auto with = root_families(reg, root_debt_rows(reg, Graph(reg, true)));
  CHECK(with[0].total_weight == 7);
}

TEST_CASE("root-debt report: text and JSON, limit, families") {
  const auto& reg = small();
  AnalysisScenario none;
  RootDebtRequest req;
  req.limit = 2;
  const RootDebtReport rows = root_debt(reg, none, req);
  CHECK(rows.mode == RootDebtMode::blast_radius);
  CHECK(rows.total_roots == 3);
  CHECK(rows.shown() == 2);
  CHECK(present::root_debt_text(rows) ==
        "Root debt: 3 root inputs by blast radius (transitive dependents; constraints not followed)\n"
        "  shown 2\n"
        "\n"
        "dependents  family  variable  unit\n"
        "         3  t.p     t.p.a     m\n"
        "         3  t.p     t.p.b     m\n");
  req.families = true, req.include_constraints = true, req.limit = 20;
  const RootDebtReport fams = root_debt(reg, none, req);
  CHECK(fams.family_count == 2);
  CHECK(present::root_debt_text(fams).find("t.p.a:4, t.p.b:3") != std::string::npos);
  req.families = false;
  const nlohmann::ordered_json j = root_debt(reg, none, req);
  CHECK(j["mode"] == "blast-radius");
  CHECK(j["total_roots"] == 3);
  CHECK(j["include_constraints"] == true);
  CHECK(j["rows"][0]["variable"] == "t.p.a");
  CHECK(j["rows"][0]["dependents"] == 4);
}

TEST_CASE("root-debt with a target ranks the scenario's inputs by elasticity") {
  const auto& reg = small();
  AnalysisScenario s;
  s.label = "hand";
  s.assignments = {{id(reg, "t.p.a"), 1}, {id(reg, "t.p.b"), 3}};  // c is missing
  RootDebtRequest req;
  req.target = "t.r.z";
  const nlohmann::ordered_json j = root_debt(reg, s, req);
  CHECK(j["mode"] == "influence");
  CHECK(j["missing"] == 1);
  CHECK(j["rows"][0]["variable"] == "t.q.c");
  CHECK(j["rows"][0]["blocks_target"] == true);
  CHECK(j["rows"][1]["variable"] == "t.p.a");  // with z still symbolic in c, no elasticity yet
  CHECK(j["rows"][1]["elasticity"].is_null());
  CHECK(j["rows"][1]["derivative"] == 2.0);    // dz/da = 2 whatever c is
  CHECK(present::root_debt_text(root_debt(reg, s, req)).find("  value          not determined (1 missing input)\n") != std::string::npos);

  s.assignments[id(reg, "t.q.c")] = 2;  // z = 2 (1 + 3) + 2 = 10
  const nlohmann::ordered_json k = root_debt(reg, s, req);
  CHECK(k["value"] == 10.0);
  CHECK(k["rows"][0]["variable"] == "t.p.b");  // 2 * 3 / 10
  CHECK(k["rows"][0]["elasticity"].get<double>() == doctest::Approx(0.6).epsilon(1e-15));
  CHECK(k["rows"][1]["elasticity"].get<double>() == doctest::Approx(0.2).epsilon(1e-15));
  CHECK(k["rows"][2]["elasticity"].get<double>() == doctest::Approx(0.2).epsilon(1e-15));
  CHECK(k["roots_outside_cone"] == 0);

  req.target = "t.r.zz";
  CHECK_THROWS_AS(root_debt(reg, s, req), PresetError);
}
