// The Simulation view's reduction of a run's timeline (runtime/site/simulation.h), on a hand-made timeline
// whose answer is known: phases become spans, a restart turns the compute since the last checkpoint into
// lost work, and the buckets account for every second, failure, interruption and checkpoint.
#include <doctest/doctest.h>

#include <numeric>

#include "runtime/site/simulation.h"

namespace {

gs::sim::TimelineEvent ev(double t_s, const char* kind, const char* subject, const char* detail) {
  return {int64_t(t_s * 1e9), kind, subject, detail};
}

// One job: computes from 0, commits a checkpoint at 100, fails at 130 (gpu.faulty), is noticed at 190,
// restarts until 250, computes again until the run ends at 400; a spare node fails at 300.
gs::sim::SimResult hand_made_run() {
  gs::sim::SimResult r;
  r.end_ns = int64_t(400e9);
  r.jobs.resize(1);
  r.jobs[0].id = "job";
  r.timeline = {ev(0, "phase", "job", "computing"),       ev(90, "phase", "job", "checkpointing"), ev(100, "checkpoint", "job", "step 9 durable"),
                ev(100, "phase", "job", "computing"),     ev(130, "failure", "gpu.faulty", "node 3"), ev(130, "phase", "job", "hung"),
                ev(190, "phase", "job", "restarting"),    ev(250, "phase", "job", "computing"),     ev(300, "failure", "host.nic", "node 9")};
  return r;
}

}  // namespace

TEST_CASE("a run's timeline becomes spans, one episode per interruption, and lost work since the checkpoint") {
  const gs::site::RecoveryTrack t = gs::site::recovery_track(hand_made_run(), "restart");
  CHECK(t.end_s == 400);
  REQUIRE(t.episodes.size() == 1);
  const gs::site::Episode& e = t.episodes[0];
  CHECK(e.cause == "gpu.faulty");
  CHECK(e.t_s == 130);
  CHECK(e.detected_s == 190);
  CHECK(e.resumed_s == 250);
  CHECK(e.lost_s == doctest::Approx(30));  // computed from 100 (the checkpoint) to 130 (the failure), redone
  CHECK(e.recovery == "hung>restarting");
  CHECK(t.checkpoints == std::vector<double>{100});
  CHECK(t.failures == std::vector<double>{130, 300});
  double covered = 0, lost = 0;
  for (const auto& s : t.spans) {
    covered += s.t1 - s.t0;
    if (s.phase == gs::site::TrackPhase::Lost) lost += s.t1 - s.t0;
  }
  CHECK(covered == doctest::Approx(400));
  CHECK(lost == doctest::Approx(30));
}

TEST_CASE("buckets over a window account for every second, failure, interruption and checkpoint") {
  const gs::site::RecoveryTrack t = gs::site::recovery_track(hand_made_run(), "restart");
  const auto j = gs::site::track_window(t, 0, 400, 4, 10);
  REQUIRE(j["rows"].size() == 4);
  CHECK(j["bucket_s"].get<double>() == 100);
  // Columns: t_s, compute, lost, checkpoint, detect, restart, reconfigure, paused, waiting, other, failures,
  // interruptions, checkpoints.
  const auto& rows = j["rows"];
  for (const auto& r : rows) {
    double seconds = 0;
    for (size_t c = 1; c <= 9; ++c) seconds += r[c].get<double>();
    CHECK(seconds == doctest::Approx(100));
  }
  CHECK(rows[0][1].get<double>() == doctest::Approx(90));   // compute kept before the checkpoint
  CHECK(rows[0][3].get<double>() == doctest::Approx(10));   // checkpointing
  CHECK(rows[1][2].get<double>() == doctest::Approx(30));   // lost: 100..130
  CHECK(rows[1][4].get<double>() == doctest::Approx(60));   // hung: 130..190
  CHECK(rows[1][5].get<double>() == doctest::Approx(10));   // restarting: 190..200
  CHECK(rows[2][5].get<double>() == doctest::Approx(50));   // restarting: 200..250
  CHECK(rows[2][1].get<double>() == doctest::Approx(50));   // computing again: 250..300
  CHECK(rows[1][10].get<int>() == 1);                       // the failure at 130
  CHECK(rows[3][10].get<int>() == 1);                       // the spare's failure at 300
  CHECK(rows[1][11].get<int>() == 1);                       // the interruption
  CHECK(rows[1][12].get<int>() == 1);                       // the checkpoint at 100 starts bucket 1
  CHECK(j["episodes"]["rows"].size() == 1);
  // A window after the interruption lists none of it.
  const auto late = gs::site::track_window(t, 260, 400, 2, 10);
  CHECK(late["episodes"]["rows"].empty());
  CHECK(late["rows"][0][1].get<double>() == doctest::Approx(70));
}
