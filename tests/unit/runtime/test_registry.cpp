#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "runtime/graph.h"
#include "runtime_support.h"

using namespace gs;
using gs::testing::id;
using gs::testing::mini;

TEST_CASE("registry: lookups by name, system, prefix and kind") {
  const Registry& reg = mini();
  CHECK(reg.find_var("econ.cost.per_token"));
  CHECK_FALSE(reg.find_var("econ.cost.per_tokn"));
  CHECK(reg.find_relation("fixture.cost_per_token"));
  CHECK(reg.find_system("lab"));
  CHECK_FALSE(reg.find_system("nope"));

  auto lab = reg.by_system(*reg.find_system("lab"));
  CHECK(std::all_of(lab.begin(), lab.end(), [&](uint32_t v) { return reg.var(v).name.starts_with("lab."); }));

  auto prefixed = reg.by_prefix("cluster.node.");
  REQUIRE(prefixed.size() > 5);
  CHECK(std::is_sorted(prefixed.begin(), prefixed.end(), [&](uint32_t a, uint32_t b) { return reg.var(a).name < reg.var(b).name; }));
  CHECK(reg.var(prefixed.front()).name.starts_with("cluster.node."));
  CHECK(reg.by_prefix("zzz").empty());

  CHECK(reg.kind(id("physics.planck")) == VarKind::Constant);
  CHECK(reg.kind(id("training.total_tokens")) == VarKind::Root);
  CHECK(reg.kind(id("econ.cost.per_token")) == VarKind::Derived);
  // Differential and mean-less stochastic relations do not define a value, so these stay roots.
  CHECK(reg.kind(id("lab.temp")) == VarKind::Root);
  CHECK(reg.kind(id("lab.noise")) == VarKind::Root);
  CHECK(reg.kind(id("lab.ttf")) == VarKind::Derived);
  CHECK(reg.constants().size() == 24);
}

TEST_CASE("registry: roots, leaves, stats and coverage agree with each other") {
  const Registry& reg = mini();
  RegistryStats s = reg.stats();
  CHECK(s.variables == reg.var_count());
  CHECK(s.relations == reg.relation_count());
  CHECK(s.constants == 24);
  CHECK(s.root_inputs == reg.roots().size());
  CHECK(s.leaves == reg.leaves().size());
  CHECK(s.systems == 4);  // units, physics, fixture, lab
  auto leaves = reg.leaves();
  CHECK(std::find(leaves.begin(), leaves.end(), id("econ.cost.per_token")) != leaves.end());
  CHECK(std::find(leaves.begin(), leaves.end(), id("training.total_tokens")) == leaves.end());

  RegistryCoverage c = reg.coverage();
  CHECK(c.non_constant_variables == s.variables - s.constants);
  CHECK(c.with_references == c.non_constant_variables);
  CHECK(c.relations_unit_checked == c.relations);
  size_t by_role = 0;
  for (size_t n : c.by_role) by_role += n;
  CHECK(by_role == c.relations);
  CHECK(c.by_role[int(Role::Differential)] == 1);
}

TEST_CASE("registry: definitions, constraints and source locations") {
  const Registry& reg = mini();
  auto defs = reg.definitions(id("lab.both"));
  REQUIRE(defs.size() == 2);
  CHECK(reg.relation(defs[0]).role == Role::Identity);
  CHECK(reg.relation(defs[1]).role == Role::Approximation);
  auto cons = reg.constraints_on(id("lab.b"));
  REQUIRE(cons.size() == 1);
  CHECK(reg.relation(cons[0]).name == "lab.a_below_b");
  std::string where = reg.location(reg.relation(*reg.find_relation("fixture.cost_per_token")).span);
  CHECK(where.starts_with("tests/unit/runtime/data/10_fixture.gstack:"));
  CHECK(std::count(where.begin(), where.end(), ':') == 2);
}

TEST_CASE("registry: a damaged image is refused with a clear message") {
  std::string path = std::string(GSTACK_BINARY_DIR) + "/tests/damaged.gsimg";
  {
    std::ofstream out(path, std::ios::binary);
    out << "not an image at all";
  }
  CHECK_THROWS_WITH_AS(Registry::load(path), doctest::Contains("bad magic"), ImageError);
  CHECK_THROWS_WITH_AS(Registry::load(path + ".missing"), doctest::Contains("cannot open"), ImageError);
}

TEST_CASE("graph: cones, order, cycles and leaves") {
  const Registry& reg = mini();
  Graph g(reg);
  auto cone = g.dependency_cone(id("cluster.rack.peak_flops"));
  std::vector<std::string> names;
  for (uint32_t v : cone) names.push_back(reg.var(v).name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"cluster.node.n_gpus", "cluster.node.peak_flops", "cluster.rack.n_nodes",
                                          "cluster.rack.peak_flops", "gpu.peak_flops"});
  auto up = g.dependent_cone(id("gpu.peak_flops"));
  CHECK(std::find(up.begin(), up.end(), id("econ.cost.per_token")) != up.end());
  CHECK(g.dependent_count(id("cluster.node.peak_flops")) == 1);

  // Validity conditions are graph edges even though they never enter a value.
  auto apx = g.deps(id("lab.apx"));
  CHECK(std::find(apx.begin(), apx.end(), id("lab.regime")) != apx.end());

  // The only cycles are the ones the 'loop' variants close: lab.c1/c2 and the nonlinear pairs g and h.
  auto cycles = g.cycles();
  REQUIRE(cycles.size() == 3);
  CHECK(cycles[0] == std::vector<uint32_t>{id("lab.c1"), id("lab.c2")});
  CHECK(cycles[1] == std::vector<uint32_t>{id("lab.g1"), id("lab.g2")});
  CHECK(cycles[2] == std::vector<uint32_t>{id("lab.h1"), id("lab.h2")});

  Graph::Order order = g.topological_order();
  CHECK(order.order.size() + order.blocked.size() == reg.var_count());
  CHECK(order.blocked ==
        std::vector<uint32_t>{id("lab.c1"), id("lab.c2"), id("lab.g1"), id("lab.g2"), id("lab.h1"), id("lab.h2")});
  std::vector<size_t> pos(reg.var_count(), SIZE_MAX);
  for (size_t i = 0; i < order.order.size(); ++i) pos[order.order[i]] = i;
  for (uint32_t v : order.order)
    for (uint32_t d : g.deps(v)) CHECK(pos[d] < pos[v]);

  auto leaves = g.leaves();
  CHECK(std::find(leaves.begin(), leaves.end(), id("econ.cost.per_token")) != leaves.end());

  // With constraints, a constraint links what it reads to its left side.
  Graph gc(reg, true);
  auto delay = gc.deps(id("lab.delay"));
  CHECK(std::find(delay.begin(), delay.end(), id("lab.period")) != delay.end());
  auto plain = g.deps(id("lab.delay"));
  CHECK(std::find(plain.begin(), plain.end(), id("lab.period")) == plain.end());
}
