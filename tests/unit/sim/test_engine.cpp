// The simulator end to end: invariants, determinism, policies and the frontier-scale run.
#include <doctest/doctest.h>

#include <chrono>

#include "runtime/research/canonical_json.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/report.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using gs::sim::testing::load_preset;
using gs::sim::testing::parse;
using gs::sim::testing::small_scenario;

TEST_CASE("smoke: the small scenario runs and conserves work") {
  Scenario sc = parse(small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"\n"));
  SimResult r = simulate(sc, {sc.seed, std::nullopt});
  MESSAGE(result_text(r));
  MESSAGE(gs::research::pretty_dump(result_to_json(r)));
  CHECK(r.work_conserved());
}
