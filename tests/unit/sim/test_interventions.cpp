// Interventions as policy actions: a board power cap priced by the model's clock share, and migration
// of a replica to another site's spares with its state share over the WAN. Hand arithmetic throughout.
#include <doctest/doctest.h>

#include <functional>

#include "runtime/sim/engine.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using gs::sim::testing::parse;
using gs::sim::testing::small_scenario;

namespace {

constexpr int64_t kSec = 1000000000;

// The job's capped operating point: the clock share and busy power the model gives at a 600 W limit
// (here test values, marked as such).
const std::string kCapPoint = R"TOML(
[job.power_cap]
board = { value = "600 W", source = "assumption", note = "test" }
clock_share = { value = "0.8", source = "assumption", note = "test" }
busy_power = { value = "560 W", source = "assumption", note = "test" }
)TOML";

// The small scenario for one hour without failures: 32 working nodes of 8 GPUs, 4 spares, 2 s steps.
Scenario quiet(const std::string& policy, const std::string& extra = "") {
  Scenario sc = parse(small_scenario(policy + kCapPoint, extra, "1 h"));
  sc.failures.clear();
  sc.finalize();
  return sc;
}

TimedEvent grid_limit(int64_t start_s, int64_t end_s, double meter_w) {
  return {TimedKind::grid_limit, "limit", "dc", "train", "test", start_s * kSec, end_s * kSec, 0, meter_w};
}

// Idle load 36 x (8 x 100 W + 1 kW) = 64.8 kW; capped dynamic 256 x (560 - 100) W = 117.76 kW; uncapped
// dynamic 256 x 600 W = 153.6 kW. 190 kW of IT power (x 1.2 PUE at the meter) binds uncapped, not capped.
constexpr double kLimitMeterW = 190000.0 * 1.2;

}  // namespace

TEST_CASE("power cap as a policy action: the step runs at the model's clock share and the boards at the capped power") {
  Scenario sc = quiet("recovery = \"restart\"\ncheckpoint = \"none\"\npower_aware = true\n");
  sc.events.push_back(grid_limit(0, 3600, kLimitMeterW));
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  const JobResult& j = r.jobs[0];
  // The limit starts before the job; at its start epoch the policy caps: 2 s / 0.8 = 2.5 s per step.
  CHECK(j.power_cap_changes == 1);
  CHECK(j.steps_committed == 1440);
  CHECK(j.decision_log.find("power_cap=cap") != std::string::npos);
  // The capped job fits the limit, so the facility throttles nothing more: 32 x (8 x 560 + 1000) + 4 x 1800 W.
  CHECK(r.sites[0].it_energy_j == doctest::Approx(182560.0 * 3600).epsilon(1e-12));
  CHECK(r.sites[0].limit_unmet_s == 0);

  // The same limit without the policy's cap: the facility scales the dynamic power by
  // rho = (190 - 64.8) / 153.6 and the compute by 1 / rho (docs/simulator.md), 2.4537 s per step.
  Scenario facility_only = quiet("recovery = \"restart\"\ncheckpoint = \"none\"\n");
  facility_only.events.push_back(grid_limit(0, 3600, kLimitMeterW));
  facility_only.finalize();
  SimResult f = simulate(facility_only, {1, std::nullopt});
  CHECK(f.jobs[0].power_cap_changes == 0);
  CHECK(f.jobs[0].steps_committed == 1467);  // floor(3600 / (2 x 153.6 / 125.2))
  CHECK(f.jobs[0].decision_log.find("power_cap") == std::string::npos);
}

TEST_CASE("the power-aware rule lifts its cap at the first epoch after the limit ends") {
  Scenario sc = quiet("recovery = \"restart\"\ncheckpoint = \"100 step\"\npower_aware = true\n");
  sc.events.push_back(grid_limit(0, 1000, kLimitMeterW));
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  const JobResult& j = r.jobs[0];
  // Capped: 100 steps of 2.5 s and a 10 s write (100 GB at 10 GB/s) commit at 260, 520, 780 and 1040 s; the
  // limit ended at 1000 s, so the commit at 1040 s lifts the cap. Then 210 s per 100 steps: 12 more
  // checkpoints by 3560 s and 20 steps of 2 s to the horizon.
  CHECK(j.power_cap_changes == 2);
  CHECK(j.checkpoints_durable == 16);
  CHECK(j.steps_committed == 400 + 1200 + 20);
  CHECK(j.work.conserved());
  CHECK(r.time_partitioned());
}

TEST_CASE("migration: a replica its site cannot refill moves to the other site's spares, its state share over the WAN") {
  // dc holds 8 replicas of 4 nodes and no spare; far holds 2 replicas and 16 spares. GPU faults take nodes
  // for ten days, so at dc a failed replica can only wait (restart) or move (migrate).
  const std::string extra = R"TOML(
[[site]]
id = "far"
source = "assumption"
note = "test"
nodes = 24
gpus_per_node = 8
storage = "store"
[[link]]
id = "dc-far"
a = "dc"
b = "far"
bandwidth = { value = "1 GB/s", source = "assumption", note = "test" }
latency = { value = "0 s", source = "assumption", note = "test" }
)TOML";
  auto run = [&](bool migrate) {
    Scenario sc = parse(small_scenario("recovery = \"restart\"\ncheckpoint = \"300 step\"\n" + kCapPoint, extra, "2 day"));
    sc.sites[0].nodes = 32;
    sc.jobs[0].placement = {{"dc", 32, 1.0}, {"far", 8, 1.0}};
    sc.jobs[0].policy.migrate = migrate;
    sc.failures.erase(sc.failures.begin() + 1);  // GPU faults only
    sc.failures[0].repair = {10 * 86400.0, 0.0};
    sc.failures[0].rate_per_unit_s /= 10;  // about 1.7 faults a day over the 448 GPUs
    sc.finalize();
    return simulate(sc, {3, std::nullopt});
  };
  SimResult moved = run(true), waited = run(false);
  const JobResult& m = moved.jobs[0];
  const JobResult& w = waited.jobs[0];
  CHECK(m.migrations > 0);
  CHECK(m.migrations <= 4);  // far's 16 spares hold four replicas
  // Each moved replica is 4 of the job's 40 nodes: a tenth of the 100 GB state crosses the link.
  CHECK(m.migration_bytes == doctest::Approx(double(m.migrations) * 10e9).epsilon(1e-9));
  CHECK(m.decision_log.find("migrate=true") != std::string::npos);
  CHECK(w.migrations == 0);
  CHECK(w.decision_log.find("migrate=") == std::string::npos);
  // Without migration the job waits ten days for its first lost node; with it, it keeps going until far's
  // spares run out.
  CHECK(w.time.waiting > m.time.waiting);
  CHECK(m.steps_committed > w.steps_committed);
  for (const SimResult* r : {&moved, &waited}) {
    CHECK(r->work_conserved());
    CHECK(r->time_partitioned());
  }
}

TEST_CASE("parallelism reconfiguration: elastic continuation at the model's step per degree and the declared cost") {
  // GPU faults only (each takes one node, so the job may always continue), 8 replicas of 4 nodes, 4 spares.
  auto run = [](std::optional<ReconfigureSpec> reconfigure) {
    Scenario sc = parse(small_scenario("recovery = \"elastic\"\ncheckpoint = \"300 step\"\nmin_replica_fraction = 0.5\n", "", "2 day"));
    sc.failures.erase(sc.failures.begin() + 1);
    if (reconfigure) {
      // The step table stands in for the model's (attach_job_model fills it from a preset); the membership
      // change's own time is made absurd, so only the declared cost can give the elastic run's timing.
      sc.jobs[0].model_preset = "test";
      sc.jobs[0].reconfigure = reconfigure;
      sc.jobs[0].policy.reconfigure = true;
      sc.jobs[0].model["training.elastic.reconfig_time"] = 999;
    }
    sc.finalize();
    SimOptions o{5, std::nullopt};
    o.timeline = true;
    return simulate(sc, o);
  };
  const SimResult elastic = run(std::nullopt);
  const JobResult& e = elastic.jobs[0];
  REQUIRE(e.elastic_continuations > 0);
  REQUIRE(e.rejoins > 0);
  // A table that stretches the step by the lost capacity's share (8 / k) and a cost equal to the membership
  // change (20 s) is elastic continuation exactly: the same run, only the log says it reconfigured.
  std::vector<double> linear;
  for (int k = 1; k <= 8; ++k) linear.push_back(8.0 / k);
  const SimResult same = run(ReconfigureSpec{20, linear});
  const JobResult& s = same.jobs[0];
  CHECK(s.end_ns == e.end_ns);
  CHECK(s.steps_committed == e.steps_committed);
  CHECK(s.work.attempted == e.work.attempted);
  CHECK(s.work.lost() == e.work.lost());
  CHECK(s.time.reconfigure == e.time.reconfigure);
  CHECK(s.elastic_continuations == e.elastic_continuations);
  CHECK(s.rejoins == e.rejoins);
  CHECK(s.degree_changes >= e.elastic_continuations + 1);
  CHECK(s.decision_log.find("reconfigure=true") != std::string::npos);
  CHECK(e.decision_log.find("reconfigure") == std::string::npos);
  CHECK(e.degree_changes == 0);
  bool shrank = false;
  for (const auto& ev : same.timeline) shrank |= ev.kind == "parallelism" && ev.detail == "dp 8 -> 7";
  CHECK(shrank);
  // A model that loses nothing per step at a smaller degree commits more steps on the same failures.
  const SimResult flat = run(ReconfigureSpec{20, std::vector<double>(8, 1.0)});
  CHECK(flat.jobs[0].steps_committed > e.steps_committed);
  for (const SimResult* r : {&elastic, &same, &flat}) {
    CHECK(r->work_conserved());
    CHECK(r->time_partitioned());
  }
}

TEST_CASE("parallelism reconfiguration is refused without its cost, its model or the elastic recovery") {
  auto error_of = [](const std::function<void(Scenario&)>& change) {
    Scenario sc = parse(small_scenario("recovery = \"elastic\"\ncheckpoint = \"none\"\nmin_replica_fraction = 0.5\n"));
    change(sc);
    try {
      sc.finalize();
      simulate(sc, {1, std::nullopt});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of([](Scenario& sc) { sc.jobs[0].policy.reconfigure = true; }).find("needs the job's [job.reconfigure] cost") != std::string::npos);
  CHECK(error_of([](Scenario& sc) {
          sc.jobs[0].policy.reconfigure = true;
          sc.jobs[0].reconfigure = ReconfigureSpec{20, {}};
        }).find("must name its model_preset") != std::string::npos);
  CHECK(error_of([](Scenario& sc) {
          sc.jobs[0].policy.reconfigure = true;
          sc.jobs[0].policy.recovery = Recovery::restart;
          sc.jobs[0].model_preset = "test";
          sc.jobs[0].reconfigure = ReconfigureSpec{20, {}};
        }).find("applies to the elastic recovery") != std::string::npos);
  // Named but never priced (loaded without the model): the run refuses to start.
  CHECK(error_of([](Scenario& sc) {
          sc.jobs[0].policy.reconfigure = true;
          sc.jobs[0].model_preset = "test";
          sc.jobs[0].reconfigure = ReconfigureSpec{20, {}};
        }).find("load the scenario with the model") != std::string::npos);
}

TEST_CASE("interventions are refused where the job cannot take them") {
  auto error_of = [](const std::string& policy, const std::string& extra) {
    try {
      parse(small_scenario(policy, extra));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("recovery = \"restart\"\ncheckpoint = \"none\"\npower_aware = true\n", "").find("needs the job's [job.power_cap] operating point") !=
        std::string::npos);
  CHECK(error_of("recovery = \"restart\"\ncheckpoint = \"none\"\nmigrate = true\n", "").find("migration needs a job placed at two or more sites") !=
        std::string::npos);
  CHECK(error_of("recovery = \"restart\"\ncheckpoint = \"none\"\nmigrate = 1\n", "").find("'migrate' must be true or false") != std::string::npos);
  const std::string bad_share = R"TOML(
[job.power_cap]
board = { value = "600 W", source = "assumption", note = "test" }
clock_share = { value = "1.5", source = "assumption", note = "test" }
busy_power = { value = "560 W", source = "assumption", note = "test" }
)TOML";
  CHECK(error_of("recovery = \"restart\"\ncheckpoint = \"none\"\n" + bad_share, "").find("a clock share in (0, 1]") != std::string::npos);
}
