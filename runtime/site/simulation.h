// The observatory's Simulation view: one simulation scenario run under each recovery policy on the same
// failure trace, reduced to what a page can draw. A 54-day run of 16,384 GPUs records about 95,000
// timeline entries per policy (a million at larger scale); the page never sees them. Each run becomes a
// recovery track (the job's phases as time spans, checkpoint commits and one episode per interruption),
// and the track is aggregated into time buckets of the width a view asks for: at export for the whole
// run, on the server (`POST /api/simulation_timeline`) for any window down to minutes.
//
// The numbers beside the tracks (ETTR, goodput, interruptions by cause, the published comparison) are
// `gpu-stack simulate --json` fields of the same runs, copied, never recomputed. Lost work per episode is
// estimated from the timeline (the compute since the last committed checkpoint, redone after a restart);
// the exact total is the ledger's `compute_lost_s`. docs/observatory.md lists the data schema.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/registry.h"
#include "runtime/sim/result.h"
#include "runtime/sim/scenario.h"

namespace gs::site {

// presets/site/simulation.toml: the scenario and the policies the view compares.
struct SimulationSettings {
  std::string scenario;               // name under presets/sim
  std::vector<std::string> policies;  // each run as `simulate --policy P`; the first is shown first
  double bucket_s = 7200;             // exported bucket width
};
std::string simulation_settings_path(const std::string& presets_dir);
// Throws PresetError (FILE:LINE:COL for malformed TOML; a named key otherwise) on a bad file.
SimulationSettings load_simulation_settings(const std::string& path);

// The job's phases in a track. Every timeline phase maps to one; "lost" is compute later redone.
enum class TrackPhase : uint8_t { Compute, Lost, Checkpoint, Detect, Restart, Reconfigure, Paused, Waiting, Other, Count };
const char* track_phase_name(TrackPhase p);

struct TrackSpan {
  double t0 = 0, t1 = 0;  // seconds from the start of the run
  TrackPhase phase = TrackPhase::Compute;
};
// One interruption: from the failure (or planned pause) to the job computing again.
struct Episode {
  double t_s = 0;          // the job stopped
  std::string cause;       // the failure class, or "planned_maintenance" for a pause with no failure
  double detected_s = 0;   // the stop was noticed and recovery began
  double resumed_s = 0;    // computing again (the end of the run when it never resumed)
  double lost_s = 0;       // compute redone: since the last committed checkpoint, when the job restarted
  std::string recovery;    // the phases it went through, e.g. "hung>restarting"
};
struct RecoveryTrack {
  std::string policy;
  double end_s = 0;
  std::vector<TrackSpan> spans;    // in time order, covering [0, end_s] without gaps once the job started
  std::vector<double> checkpoints; // commit times
  std::vector<double> failures;    // every failure drawn on the fleet (spares and idle nodes too)
  std::vector<Episode> episodes;
};
// The first job's track; the run must have been made with SimOptions::timeline.
RecoveryTrack recovery_track(const sim::SimResult& run, const std::string& policy);

// The track in `n` equal buckets over [from_s, to_s): seconds in each phase, failures, interruptions and
// checkpoints per bucket, as {"bucket_s", "columns", "rows"}; plus the interruptions that overlap the
// window (at most `max_episodes`, the earliest first) as {"episodes": {"columns", "rows"}, "episodes_total"}.
nlohmann::ordered_json track_window(const RecoveryTrack& track, double from_s, double to_s, size_t n, size_t max_episodes);

// Every GPU of every site (spares included), and the GPU-days a run of `sc` asks for (all GPUs of every site, the horizon in days, at least one day).
double scenario_gpus(const sim::Scenario& sc);
double scenario_gpu_days(const sim::Scenario& sc);

// One policy's run with its timeline: `policy` empty runs the scenario's own.
struct PolicyRun {
  sim::SimResult result;
  RecoveryTrack track;
};
PolicyRun run_policy(const sim::Scenario& sc, const std::string& policy, uint64_t seed, uint64_t max_events);

// The view's data file (schema gpu-stack.site.simulation.v1): every policy of `settings` on
// presets/sim/<scenario>.toml under the scenario's seed.
nlohmann::ordered_json simulation_view_json(const Registry& reg, const std::string& presets_dir, const SimulationSettings& settings);

}  // namespace gs::site
