// verify: each check catches what it is for, on small models (some deliberately broken in memory),
// and the shipped model passes the fast profile quickly.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "image/image.h"
#include "runtime/analysis/verify.h"
#include "runtime/present/analysis.h"
#include "support.h"

using namespace gs;
using namespace gs::testing;

namespace {

const char* kModel = R"(system t "Verify test model"
ref n "Synthetic relations for the analysis tests" kind memo
var t.p.a : m "a" ref n assume positive
var t.p.b : m "b" ref n assume positive
var t.r.x : m "x" ref n
var t.r.y : m "y" ref n
var t.r.z : m "z" ref n
eq ex: t.r.x = t.p.a + t.p.b ref n
eq ey: t.r.y = 2 * t.r.x ref n
eq ez: t.r.z = sqrt(t.r.y * t.p.a) + min(t.p.a, t.p.b) ref n
constraint fine: t.p.a <= t.r.x ref n
)";

const VerifyCheck& find(const std::vector<VerifyCheck>& checks, const std::string& name) {
  auto it = std::find_if(checks.begin(), checks.end(), [&](const VerifyCheck& c) { return c.name == name; });
  REQUIRE_MESSAGE(it != checks.end(), "no check " << name);
  return *it;
}

bool mentions(const VerifyCheck& c, const std::string& text) {
  return std::any_of(c.details.begin(), c.details.end(), [&](const std::string& d) { return d.find(text) != std::string::npos; });
}

uint32_t relation_id(const Image& img, const std::string& name) {
  for (uint32_t r = 0; r < img.relations.size(); ++r)
    if (img.relations[r].name == name) return r;
  FAIL("no relation " << name);
  return 0;
}

uint32_t var_id(const Image& img, const std::string& name) {
  for (uint32_t v = 0; v < img.vars.size(); ++v)
    if (img.vars[v].name == name) return v;
  FAIL("no variable " << name);
  return 0;
}

}  // namespace

TEST_CASE("a sound small model passes every check, JIT agreement included") {
  Registry reg(compile_model(kModel));
  VerifyRequest req;
  req.profile = "full";
  auto checks = verify_checks(reg, req);
  CHECK(checks.size() == 11);
  for (const auto& c : checks) {
    INFO(c.name << ": " << c.summary);
    // No presets directory was given and the in-memory sources have no files to compare.
    CHECK((c.status == "ok" || c.name == "presets" || c.name == "freshness"));
  }
  CHECK(find(checks, "orphans").count == size_t(0));
  CHECK(find(checks, "file-size").summary == "0 of 0 source files have 700 lines or more");
  CHECK(find(checks, "jit").summary.find("0 disagreeing") != std::string::npos);
  CHECK_THROWS_AS(verify_checks(reg, VerifyRequest{"fastest", "", "", 3, 2024, 1e-9}), PresetError);
}

TEST_CASE("a stale image is detected: compile, edit the source, verify") {
  TempDir dir;
  const std::string file = dir.file("t.gstack");
  Registry reg(compile_model(kModel, file));
  VerifyRequest req;
  CHECK(find(verify_checks(reg, req), "freshness").status == "ok");
  write_text(file, std::string(kModel) + "# an edit after the compile\n");
  auto checks = verify_checks(reg, req);
  const auto& f = find(checks, "freshness");
  CHECK(f.status == "fail");
  CHECK(f.summary.find("stale image: 1 of 3 source files changed") != std::string::npos);
  CHECK(mentions(f, file + " changed since the image was compiled"));
  const VerifyReport report = verify(reg, req);
  CHECK_FALSE(report.passed());
  CHECK(report.failed == 1);
  CHECK(present::verify_text(report).find("  FAIL  freshness   stale image: 1 of 3 source files changed") != std::string::npos);
  std::filesystem::remove(file);
  CHECK(find(verify_checks(reg, req), "freshness").status == "warn");  // cannot compare, not stale
}

TEST_CASE("constraints and validity conditions decided without any input") {
  Registry reg(compile_model(std::string(kModel) +
                             "constraint never: t.p.a < t.p.a ref n\n"
                             "constraint always: t.p.b - t.p.b <= 0 [m] ref n\n"
                             "var t.r.w : m \"w\" ref n\n"
                             "approx w when 1 < 2: t.r.w = t.p.a ref n\n"));
  auto c_checks = verify_checks(reg, VerifyRequest{});
  const auto& c = find(c_checks, "trivial");
  CHECK(c.status == "fail");
  CHECK(c.details.size() == 3);
  CHECK(mentions(c, "t.never (constraint) is always false"));
  CHECK(mentions(c, "t.always (constraint) is always true"));
  CHECK(mentions(c, "t.w (validity) is always true"));
}

TEST_CASE("a cycle of identities fails, one through a variant only warns") {
  Image img = compile_model(kModel);
  // ex: x = a + b + z closes x -> y -> z -> x with identities only.
  Relation& ex = img.relations[relation_id(img, "t.ex")];
  ex.rhs.nodes.push_back(Node{Op::Var, var_id(img, "t.r.z")});
  ex.rhs.nodes.push_back(Node{Op::Add});
  build_adjacency(img);
  Registry reg(std::move(img));
  auto c_checks = verify_checks(reg, VerifyRequest{});
  const auto& c = find(c_checks, "cycles");
  CHECK(c.status == "fail");
  CHECK(mentions(c, "cycle of identities (unresolvable in every scenario): t.r.x, t.r.y, t.r.z"));

  auto mini_cycles_checks = verify_checks(mini(), VerifyRequest{});
  const auto& mini_cycles = find(mini_cycles_checks, "cycles");
  CHECK(mini_cycles.status == "warn");
  CHECK(mentions(mini_cycles, "lab.c1, lab.c2"));
}

TEST_CASE("an expression naming an unregistered variable fails, and evaluation checks are skipped") {
  Image img = compile_model(kModel);
  for (auto& node : img.relations[relation_id(img, "t.ey")].rhs.nodes)
    if (node.op == Op::Var) node.index = 99999;
  Registry reg(std::move(img));
  VerifyRequest req;
  req.profile = "full";
  auto checks = verify_checks(reg, req);
  const auto& s = find(checks, "symbols");
  CHECK(s.status == "fail");
  CHECK(mentions(s, "t.ey (right side): variable #99999, which is not registered"));
  CHECK(mentions(s, "t.ey: the image's dependency list differs"));
  CHECK(find(checks, "trivial").status == "skip");
  CHECK(find(checks, "jit").status == "skip");
}

TEST_CASE("the constants rule") {
  Image img = compile_model(kModel);
  Variable& a = img.vars[var_id(img, "t.p.a")];
  a.is_constant = true, a.value = 1;
  Variable& x = img.vars[var_id(img, "t.r.x")];
  x.is_constant = true, x.value = 2;
  Registry reg(std::move(img));
  auto c_checks = verify_checks(reg, VerifyRequest{});
  const auto& c = find(c_checks, "constants");
  CHECK(c.status == "fail");
  CHECK(mentions(c, "t.p.a is a constant outside the physics system"));
  CHECK(mentions(c, "t.r.x is a constant on the left side of a relation"));
}

TEST_CASE("presets: each loads and its targets resolve to the expected values, other TOML is skipped") {
  Registry reg(compile_model(kModel));
  TempDir dir;
  write_text(dir.file("good.toml"),
             "source = \"hand\"\n[assign]\n\"t.p.a\" = \"1 m\"\n\"t.p.b\" = \"3 m\"\n[targets]\ny = \"t.r.y\"\n"
             "[expected]\n\"t.r.y\" = \"8 m\"\n");
  write_text(dir.file("sub/wrong.toml"), "[assign]\n\"t.p.a\" = \"1 m\"\n\"t.p.b\" = \"3 m\"\n[targets]\ny = \"t.r.y\"\n"
                                         "[expected]\n\"t.r.y\" = \"9 m\"\n");
  write_text(dir.file("gap.toml"), "[assign]\n\"t.p.a\" = \"1 m\"\n[targets]\ny = \"t.r.y\"\n");
  write_text(dir.file("broken.toml"), "[assign]\n\"t.p.q\" = 1\n");
  write_text(dir.file("sim.toml"), "schema = \"gpu-stack.sim-scenario.v1\"\n");
  VerifyRequest req;
  req.presets_dir = dir.path.string();
  req.profile = "full";  // fast only loads the presets
  auto c_checks = verify_checks(reg, req);
  const auto& c = find(c_checks, "presets");
  CHECK(c.status == "fail");
  CHECK(c.details.size() == 3);
  CHECK(mentions(c, "broken: does not load"));
  CHECK(mentions(c, "gap [y] t.r.y does not resolve: missing t.p.b"));
  CHECK(mentions(c, "sub/wrong [y] t.r.y = 8 m but [expected] says 9 m"));
  CHECK(c.summary == "3 presets load, 1 broken, 3 targets checked; 1 other TOML file skipped");
  req.profile = "fast";
  auto fast_checks = verify_checks(reg, req);
  const auto& fast = find(fast_checks, "presets");
  CHECK(fast.details.size() == 1);  // only the preset that does not load
  CHECK(fast.summary == "3 presets load, 1 broken; targets are resolved by the full profile; 1 other TOML file skipped");
}

TEST_CASE("orphans: a variable in no relation is counted until a preset mentions it") {
  const std::string with_orphans = std::string(kModel) + "var t.p.lonely : m \"in no relation\" ref n\n"
                                                         "var t.p.pinned : m \"in no relation, but a preset assigns it\" ref n\n";
  Registry reg(compile_model(with_orphans));
  auto bare = verify_checks(reg, VerifyRequest{});
  const auto& c = find(bare, "orphans");
  CHECK(c.status == "warn");
  CHECK(c.count == size_t(2));
  CHECK(mentions(c, "t.p.lonely ("));
  CHECK(c.summary == "2 orphan variables (in no relation; no presets were read)");
  TempDir dir;
  write_text(dir.file("pins.toml"), "[assign]\n\"t.p.pinned\" = \"1 m\"\n");
  VerifyRequest req;
  req.presets_dir = dir.path.string();
  auto with_presets = verify_checks(reg, req);
  const auto& p = find(with_presets, "orphans");
  CHECK(p.count == size_t(1));
  CHECK(mentions(p, "t.p.lonely ("));
  CHECK_FALSE(mentions(p, "t.p.pinned"));
  CHECK(p.summary == "1 orphan variable (in no relation and no preset)");
}

TEST_CASE("the shipped model passes the fast profile in well under a second") {
  // The preset check runs over the whole presets/ tree, which other work changes independently of the
  // model; the fixture's two presets are enough to show it works on the shipped model.
  TempDir dir;
  for (const char* name : {"dense_variant_selector.toml", "dense_training_cost_fixture.toml"})
    write_text(dir.file(name), read_text(presets_dir() + "/" + name));
  VerifyRequest req;
  req.presets_dir = dir.path.string();
  auto t0 = std::chrono::steady_clock::now();
  auto checks = verify_checks(model(), req);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& c : checks) {
    INFO(c.name << ": " << c.summary << (c.details.empty() ? "" : "; " + c.details.front()));
    CHECK(c.status != "fail");
  }
  CHECK(find(checks, "presets").summary == "2 presets load; targets are resolved by the full profile");
  CHECK(seconds < 1.0);
}
