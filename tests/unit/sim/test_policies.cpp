// Recovery policies: each does what it says, and only on what it may observe.
#include <doctest/doctest.h>

#include "runtime/sim/engine.h"
#include "runtime/sim/policy.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using gs::sim::testing::parse;
using gs::sim::testing::small_scenario;

namespace {
std::string policy(const std::string& recovery, const std::string& envelope) {
  return "recovery = \"" + recovery + R"("
checkpoint = "daly"
durable_every = 4
peer_group = 2
min_replica_fraction = 0.5
prior_failures = 5
envelope = { source = "test", ranges = [)" + envelope + "] }\n";
}
const std::string kWide = R"({ feature = "replica_loss_fraction", lo = 0.0, hi = 0.5 })";
}  // namespace

TEST_CASE("checkpoint intervals follow Daly from the declared MTBF and the expected write time") {
  Observation o;
  o.epoch = Epoch::start;
  o.step_s = 2;
  o.checkpoint_write_s = 10;
  o.prior_mtbf_s = 7854;
  PolicySpec spec;
  spec.cadence = Cadence::daly;
  const auto rules = gs::sim::testing::intervals();
  Decision d = Policy(spec, rules).decide(o);
  // Daly: sqrt(2 x 10 x 7854) (1 + sqrt(r)/3 + r/9) - 10 with r = 10 / 15708: 396.333 x 1.0084811 - 10 = 389.69 s, 195 steps of 2 s
  CHECK(d.checkpoint_interval_steps == uint32_t(std::lround(rules->daly(10, 7854) / 2)));
  CHECK(d.checkpoint_interval_steps == 195);
  spec.cadence = Cadence::young;
  // Young: sqrt(2 x 10 x 7854) = 396.33 s, 198 steps
  CHECK(Policy(spec, rules).decide(o).checkpoint_interval_steps == 198);
  CHECK_THROWS_AS(Policy{spec}, std::invalid_argument);  // a Young or Daly cadence needs the model's rules
  spec.cadence = Cadence::fixed_time;
  spec.cadence_value = 600;
  CHECK(Policy(spec, gs::sim::testing::intervals()).decide(o).checkpoint_interval_steps == 300);
}

TEST_CASE("the adaptive cadence doubles on collective-bound cycles and halves on compute-bound ones") {
  PolicySpec spec;
  spec.sync = SyncMode::adaptive;
  spec.sync_min = 1;
  spec.sync_max = 64;
  spec.sync_high = 0.45;
  spec.sync_low = 0.20;
  Observation o;
  o.epoch = Epoch::sync_completed;
  o.sync_observed = true;
  o.local_steps = 11;
  o.collective_phase_fraction = 0.48;
  CHECK(Policy(spec, gs::sim::testing::intervals()).decide(o).local_steps == 22);
  o.collective_phase_fraction = 0.1;
  CHECK(Policy(spec, gs::sim::testing::intervals()).decide(o).local_steps == 5);
  o.collective_phase_fraction = 0.3;
  CHECK(Policy(spec, gs::sim::testing::intervals()).decide(o).local_steps == 11);
  o.sync_observed = false;  // no completed-cycle evidence: no change
  CHECK(Policy(spec, gs::sim::testing::intervals()).decide(o).local_steps == 0);
}

TEST_CASE("elastic continuation drops the failed replica and brings it back later") {
  Scenario sc = parse(small_scenario(policy("elastic", kWide)));
  SimResult r = simulate(sc, {2, std::nullopt});
  const JobResult& j = r.jobs[0];
  CHECK(j.elastic_continuations > 0);
  CHECK(j.rejoins > 0);
  CHECK(j.state_transfer_bytes > 0);
  CHECK(j.restores_durable > 0);  // software faults kill every process: elasticity cannot help there
}

TEST_CASE("peer-memory checkpoints restore faster when their shards survive") {
  Scenario sc = parse(small_scenario(policy("in_memory", kWide)));
  SimResult r = simulate(sc, {2, std::nullopt});
  const JobResult& j = r.jobs[0];
  CHECK(j.restores_memory > 0);
  CHECK(j.checkpoints_memory > j.checkpoints_durable);
  CHECK(j.checkpoints_durable > 0);
}

TEST_CASE("the adaptive policy abstains outside its calibrated range and then acts exactly as the baseline") {
  Scenario outside = parse(small_scenario(policy("adaptive", R"({ feature = "replica_loss_fraction", lo = 0.5, hi = 0.6 })")));
  SimResult a = simulate(outside, {2, std::nullopt});
  const JobResult& j = a.jobs[0];
  CHECK(j.abstentions > 0);
  CHECK(j.abstentions == j.restores_durable);  // every observed failure: abstain, restore like the baseline
  CHECK(j.elastic_continuations == 0);
  Scenario inside = parse(small_scenario(policy("adaptive", kWide)));
  SimResult b = simulate(inside, {2, std::nullopt});
  CHECK(b.jobs[0].abstentions == 0);
  CHECK(b.jobs[0].elastic_continuations > 0);
}

TEST_CASE("wait_restore waits for the job's own nodes instead of taking spares") {
  Scenario sc = parse(small_scenario(policy("restart", kWide)));
  SimResult spares = simulate(sc, {2, Recovery::restart}), own = simulate(sc, {2, Recovery::wait_restore});
  CHECK(own.jobs[0].time.waiting > spares.jobs[0].time.waiting);
  CHECK(own.jobs[0].steps_committed < spares.jobs[0].steps_committed);
}

TEST_CASE("a Young or Daly cadence on a scenario loaded without the model is refused, naming the job") {
  Scenario sc = parse_scenario_toml(small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"\n"), gs::sim::testing::units(), "t.toml");
  CHECK_THROWS_WITH_AS(simulate(sc, {1, std::nullopt}), doctest::Contains("job 'train': checkpoint = \"daly\" takes its interval from the model"),
                       std::invalid_argument);
  sc.jobs[0].policy.cadence = Cadence::fixed_steps;  // a fixed cadence needs no model
  sc.jobs[0].policy.cadence_value = 100;
  CHECK(simulate(sc, {1, std::nullopt}).work_conserved());
}
