// Energy, power limits, outages, preemption, stragglers and shared storage, against hand arithmetic.
#include <doctest/doctest.h>

#include "runtime/sim/engine.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using gs::sim::testing::parse;
using gs::sim::testing::small_scenario;

namespace {

constexpr int64_t kSec = 1000000000;

// The small scenario without failures, for one hour: 2 s steps, 32 working nodes and 4 spares.
Scenario quiet(const std::string& policy = "recovery = \"restart\"\ncheckpoint = \"none\"\n") {
  Scenario sc = parse(small_scenario(policy, "", "1 h"));
  sc.failures.clear();
  sc.finalize();
  return sc;
}

TimedEvent event(TimedKind kind, int64_t start_s, int64_t end_s, double limit_w = 0, int64_t notice_s = 0) {
  return {kind, "ev", "dc", "train", "test", start_s * kSec, end_s * kSec, notice_s * kSec, limit_w};
}

}  // namespace

TEST_CASE("energy: an uninterrupted job draws exactly its nodes' power") {
  SimResult r = simulate(quiet(), {1, std::nullopt});
  const JobResult& j = r.jobs[0];
  CHECK(j.steps_committed == 1800);
  CHECK(j.ettr() == 1.0);
  // 32 nodes x (8 x 700 W + 1 kW) + 4 spares x (8 x 100 W + 1 kW) = 218,400 W for 3600 s.
  CHECK(r.sites[0].it_energy_j == doctest::Approx(218400.0 * 3600).epsilon(1e-12));
  CHECK(r.sites[0].facility_energy_j == doctest::Approx(218400.0 * 3600 * 1.2).epsilon(1e-12));
  CHECK(*r.sites[0].energy_cost_usd == doctest::Approx(218400.0 * 3600 * 1.2 * 0.1 / 3.6e6).epsilon(1e-12));
  CHECK(r.peak_it_w == 218400.0);
}

TEST_CASE("a grid limit caps the GPUs' dynamic power and slows the job") {
  Scenario sc = quiet();
  // Idle load 36 x 1.8 kW = 64.8 kW; dynamic 256 x 600 W = 153.6 kW. Allow half the dynamic power at the
  // meter (PUE 1.2): the compute part of a step doubles for ten minutes.
  sc.events.push_back(event(TimedKind::grid_limit, 600, 1200, (64800 + 76800) * 1.2));
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  CHECK(r.jobs[0].steps_committed == 1650);  // 300 + 150 at 4 s + 1200
  CHECK(r.jobs[0].work.conserved());
  CHECK(r.sites[0].limit_unmet_s == 0);
}

TEST_CASE("a limit below the idle load pauses the job with its state kept") {
  Scenario sc = quiet();
  sc.events.push_back(event(TimedKind::grid_limit, 600, 900, 0));
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  const JobResult& j = r.jobs[0];
  CHECK(j.steps_committed == 1650);
  CHECK(j.time.paused == 300 * kSec);
  CHECK(j.work.lost() == 0);  // 600 s is a step boundary: nothing was in flight
  CHECK(r.sites[0].limit_unmet_s == 300);
}

// A site's steady limits (grid_limit, cooling_capacity in the scenario file) hold from the start of the
// run, not only once some timed limit event has re-divided the site's power.
TEST_CASE("a site's fixed grid limit and cooling capacity act from t = 0") {
  // The same half of the dynamic power as above, allowed for the whole hour: every step takes 4 s.
  Scenario grid = quiet();
  grid.sites[0].grid_limit_w = (64800 + 76800) * 1.2;
  grid.finalize();
  SimResult r = simulate(grid, {1, std::nullopt});
  CHECK(r.jobs[0].steps_committed == 900);
  CHECK(r.jobs[0].work.conserved());
  // 36 idle nodes (64.8 kW) plus half the dynamic power (76.8 kW) for the whole hour, at the limit.
  CHECK(r.sites[0].it_energy_j == doctest::Approx(141600.0 * 3600).epsilon(1e-12));
  CHECK(r.sites[0].limit_unmet_s == 0);
  // A cooling capacity bounds the IT load itself (no PUE): the same cap, the same 900 steps.
  Scenario cooling = quiet();
  cooling.sites[0].cooling_capacity_w = 64800 + 76800;
  cooling.finalize();
  CHECK(simulate(cooling, {1, std::nullopt}).jobs[0].steps_committed == 900);
  // Below the idle load the job never computes: paused from its start, nothing done or lost.
  Scenario dark = quiet();
  dark.sites[0].cooling_capacity_w = 10000;
  dark.finalize();
  SimResult d = simulate(dark, {1, std::nullopt});
  CHECK(d.jobs[0].steps_committed == 0);
  CHECK(d.jobs[0].work.attempted == 0);
  CHECK(d.jobs[0].time.paused == 3600 * kSec);
  CHECK(d.sites[0].limit_unmet_s == 3600);
}

TEST_CASE("a site outage interrupts the job, which waits for the site and then restores") {
  Scenario sc = quiet("recovery = \"restart\"\ncheckpoint = \"300 step\"\n");
  sc.events.push_back(event(TimedKind::site_outage, 601, 1800));
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  const JobResult& j = r.jobs[0];
  CHECK(j.interruptions.at("site_outage:test") == 1);
  CHECK(j.time.detection == 30 * kSec);
  CHECK(j.time.waiting == (1800 - 631) * kSec);
  CHECK(j.time.restart == 65 * kSec);  // 60 s relaunch + 100 GB at 20 GB/s
  CHECK(j.restores_durable == 1);
  // At 601 s the job was writing its 300-step checkpoint (from 600 s, 10 GB/s): the write is aborted after
  // 10 GB and the restart goes back to the start.
  CHECK(j.checkpoint_bytes_aborted == doctest::Approx(10e9).epsilon(1e-12));
  CHECK(j.work.lost_rollback == 300 * 1000);
  CHECK(j.work.lost_interrupted == 0);
  CHECK(j.work.conserved());
}

TEST_CASE("a preemption with notice checkpoints first, then loses only what came after") {
  Scenario sc = quiet("recovery = \"restart\"\ncheckpoint = \"100000 step\"\n");
  sc.events.push_back(event(TimedKind::preemption, 1000, 1500, 0, 100));
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  const JobResult& j = r.jobs[0];
  CHECK(j.interruptions.at("preemption:test") == 1);
  CHECK(j.checkpoints_durable == 1);  // written at the notice: 100 GB at 10 GB/s, from 900 s to 910 s
  CHECK(j.work.lost_rollback == 45 * 1000);  // steps between 910 s and 1000 s
  CHECK(j.time.paused == 500 * kSec);
  CHECK(j.work.conserved());
}

TEST_CASE("stragglers stretch synchronous steps") {
  Scenario sc = quiet();
  SimResult nominal = simulate(sc, {1, std::nullopt});
  sc.stragglers.static_sigma = 0.05;
  sc.finalize();
  SimResult slow = simulate(sc, {1, std::nullopt});
  CHECK(slow.jobs[0].steps_committed < nominal.jobs[0].steps_committed);
  CHECK(slow.jobs[0].steps_committed > nominal.jobs[0].steps_committed * 0.8);
  sc.stragglers.static_sigma = 0;
  sc.stragglers.transient_rate_per_node_s = 1.0 / 600;
  sc.stragglers.transient_duration = {120, 0.5};
  sc.stragglers.transient_slowdown = 1.5;
  sc.finalize();
  SimResult episodes = simulate(sc, {1, std::nullopt});
  CHECK(episodes.straggler_episodes > 100);
  CHECK(episodes.jobs[0].steps_committed < nominal.jobs[0].steps_committed);
  CHECK(episodes.jobs[0].work.conserved());
}

TEST_CASE("sites share a store: a remote writer crosses the WAN and slows the local one") {
  Scenario sc = quiet("recovery = \"restart\"\ncheckpoint = \"300 step\"\n");
  sc.storages[0].site = "dc";
  SiteSpec far = sc.sites[0];
  far.id = "far";
  sc.sites.push_back(far);
  sc.links.push_back({"dc-far", "dc", "far", 1e9, 0});
  JobSpec remote = sc.jobs[0];
  remote.id = "remote";
  remote.placement = {{"far", 32, 1.0}};
  sc.jobs.push_back(remote);
  sc.finalize();
  SimResult r = simulate(sc, {1, std::nullopt});
  // Both write 100 GB at 600 s: the store's 10 GB/s is split, so the local job gets 5 GB/s (20 s) while the
  // remote one is held to the 1 GB/s link (100 s). The jobs then drift apart and never write together again:
  // the local job's next four checkpoints take 10 s each, every remote one 100 s.
  CHECK(r.jobs[0].checkpoints_durable == 5);
  CHECK(r.jobs[0].time.checkpoint == (20 + 4 * 10) * kSec);
  CHECK(r.jobs[1].checkpoints_durable == 5);
  CHECK(r.jobs[1].time.checkpoint == 5 * 100 * kSec);
  CHECK(r.jobs[1].checkpoint_bytes == 5 * 100e9);
}
