// scenario-audit and next-work on small models and temporary preset directories.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "runtime/analysis/audit.h"
#include "runtime/analysis/next_work.h"
#include "runtime/present/analysis.h"
#include "support.h"

using namespace gs;
using namespace gs::testing;

namespace {

const char* kModel = R"(system t "Audit test model"
ref n "Synthetic relations for the analysis tests" kind memo
var t.p.a : m "a" ref n
var t.p.b : m "b" ref n
var t.q.c : m "c" ref n
var t.r.x : m "x" ref n
var t.r.y : m "y" ref n
eq ex: t.r.x = t.p.a + t.p.b + t.q.c ref n
eq ey: t.r.y = 2 * t.r.x ref n
)";

const Registry& small() {
  static Registry reg(compile_model(kModel));
  return reg;
}

const AuditEntry& entry(const std::vector<AuditEntry>& es, const std::string& name) {
  auto it = std::find_if(es.begin(), es.end(), [&](const AuditEntry& e) { return e.name == name; });
  REQUIRE_MESSAGE(it != es.end(), "no entry " << name);
  return *it;
}

struct Presets {
  TempDir dir;
  Presets() {
    write_text(dir.file("full.toml"), "source = \"hand\"\n[assign]\n\"t.p.a\" = \"1 m\"\n\"t.p.b\" = \"2 m\"\n\"t.q.c\" = \"3 m\"\n"
                                      "[targets]\ny = \"t.r.y\"\nx = \"t.r.x\"\n");
    write_text(dir.file("packs/gap.toml"), "[assign]\n\"t.p.a\" = \"1 m\"\n[targets]\ny = \"t.r.y\"\n");
    write_text(dir.file("bare.toml"), "source = \"hand\"\n[assign]\n\"t.p.a\" = \"1 m\"\n");
    write_text(dir.file("broken.toml"), "[assign]\n\"t.p.q\" = 1\n");
    write_text(dir.file("sim.toml"), "schema = \"gpu-stack.sim-scenario.v1\"\n");
  }
};

}  // namespace

TEST_CASE("scenario audit: source, counts, targets' status and missing families per preset") {
  Presets p;
  AuditRequest req;
  req.presets_dir = p.dir.path.string();
  const ScenarioAuditReport report = scenario_audit(small(), req);
  const auto& es = report.presets;
  REQUIRE(es.size() == 4);  // the simulator scenario is not a preset
  CHECK(es[0].name == "bare");  // sorted by name
  const auto& full = entry(es, "full");
  CHECK(full.status == "ok");
  CHECK(full.source == "hand");
  CHECK(full.assignments == 3);
  REQUIRE(full.targets.size() == 2);
  CHECK(full.targets[0].label == "y");
  CHECK(*full.targets[0].value == 12.0);
  const auto& gap = entry(es, "packs/gap");
  CHECK(gap.status == "issues");
  CHECK(gap.source.empty());
  CHECK(gap.issues == 2);
  REQUIRE(gap.families.size() == 2);  // t.p (b) and t.q (c), one each, by name
  CHECK(gap.families[0].family == "t.p");
  CHECK(gap.families[0].category == "primitive-root");
  CHECK(gap.families[1].family == "t.q");
  CHECK(entry(es, "bare").status == "no-targets");
  CHECK(entry(es, "broken").status == "error");
  CHECK(entry(es, "broken").error.find("unknown variable in [assign] 't.p.q'") != std::string::npos);

  CHECK(report.issues == 3);  // gap's two missing inputs and the preset that does not load
  CHECK(report.ok == 1);
  CHECK(report.errors == 1);
  CHECK(report.unsourced == 1);  // gap; broken does not load, so it is not counted
  CHECK(gap.targets[0].missing.size() == 2);
  CHECK(gap.families[0].names == std::vector<std::string>{"t.p.b"});
  const std::string text = present::scenario_audit_text(report, true);
  CHECK(text.find("      family=t.p category=primitive-root count=1 names=t.p.b\n") != std::string::npos);
  CHECK(present::scenario_audit_text(report, false).find("    missing families: 2 (list them with --missing-families)\n") != std::string::npos);
}

TEST_CASE("scenario audit: --target replaces each preset's targets and --preset narrows the list") {
  Presets p;
  AuditRequest req;
  req.presets_dir = p.dir.path.string();
  req.presets = {"full"};
  req.targets = {"xx=t.r.x"};
  auto es = scenario_audit(small(), req).presets;
  REQUIRE(es.size() == 1);
  REQUIRE(es[0].targets.size() == 1);
  CHECK(es[0].targets[0].label == "xx");
  CHECK(*es[0].targets[0].value == 6.0);
  req.targets = {"t.r.nope"};
  CHECK_THROWS_AS(scenario_audit(small(), req), PresetError);
  req.targets = {};
  req.presets = {"nope"};
  CHECK_THROWS_AS(scenario_audit(small(), req), PresetError);
}

TEST_CASE("next work: blocking inputs first, then influential inputs without a source") {
  Presets p;
  NextWorkRequest req;
  req.presets_dir = p.dir.path.string();
  req.preset = "packs/gap";
  req.targets = {"t.r.y"};
  auto nw = next_work(small(), req);
  REQUIRE(nw.items.size() >= 2);
  CHECK(nw.items[0].kind == "blocking-input");
  CHECK(nw.items[1].kind == "blocking-input");
  CHECK(nw.items[0].title == "Give t.p.b a sourced value");
  CHECK(nw.items[0].command == "gpu-stack resolve t.r.y --preset packs/gap --missing");
  CHECK(nw.items.back().kind == "root-debt");
  CHECK(nw.notes.size() == 1);

  // Everything assigned, but by a preset without a source: y = 2 (a + b + c) with a = 1, b = 2, c = 3.
  write_text(p.dir.file("nosource.toml"), "[assign]\n\"t.p.a\" = \"1 m\"\n\"t.p.b\" = \"2 m\"\n\"t.q.c\" = \"3 m\"\n");
  req.preset = "nosource";
  nw = next_work(small(), req);
  REQUIRE(nw.items.size() == 4);
  CHECK(nw.items[0].kind == "unsourced-input");
  CHECK(nw.items[0].title == "Find a source for t.q.c");  // elasticity 3/6, the largest
  CHECK(nw.items[0].evidence.find("elasticity +0.5 of t.r.y; set by nosource, which states no source") == 0);
  CHECK(nw.items[2].title == "Find a source for t.p.a");

  // The same values from a sourced preset: the gap is their unstated uncertainty.
  req.preset = "full";
  nw = next_work(small(), req);
  REQUIRE(nw.items.size() == 4);
  CHECK(nw.items[0].kind == "uncertainty-missing");

  req.limit = 2;
  const NextWorkReport two = next_work(small(), req);
  CHECK(two.shown == 2);
  const nlohmann::ordered_json j = two;
  CHECK(j["shown"] == 2);
  CHECK(j["item_count"] == 4);
  CHECK(j["items"][0]["rank"] == 1);
  CHECK(j["items"].size() == 2);
  const std::string text = present::next_work_text(two);
  CHECK(text.find("Next work under full for t.r.y\n  4 items, shown 2\n") == 0);
  CHECK(text.find("\n  2. [uncertainty-missing] ") != std::string::npos);
}

TEST_CASE("next work on the shipped model and the fixture names its evidence") {
  NextWorkRequest req;
  req.presets_dir = presets_dir();
  req.preset = "dense_training_cost_fixture";
  auto nw = next_work(model(), req);
  REQUIRE(nw.targets.size() == 1);
  CHECK(model().var(nw.targets[0]).name == "econ.cost.per_token");
  REQUIRE_FALSE(nw.items.empty());
  CHECK(std::none_of(nw.items.begin(), nw.items.end(), [](const WorkItem& w) { return w.kind == "blocking-input"; }));
  CHECK(std::any_of(nw.items.begin(), nw.items.end(),
                    [](const WorkItem& w) { return w.title == "State the uncertainty of econ.job.capex_rate"; }));
}
