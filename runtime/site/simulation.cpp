#include "runtime/site/simulation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "runtime/presets.h"
#include "runtime/research/canonical_json.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/interval_model.h"
#include "runtime/sim/job_model.h"
#include "runtime/sim/report.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/toml_file.h"

namespace gs::site {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

TrackPhase phase_of(const std::string& detail) {
  static const std::map<std::string, TrackPhase> m = {
      {"computing", TrackPhase::Compute},       {"checkpointing", TrackPhase::Checkpoint}, {"hung", TrackPhase::Detect},
      {"restarting", TrackPhase::Restart},      {"reconfiguring", TrackPhase::Reconfigure}, {"rejoining", TrackPhase::Reconfigure},
      {"paused", TrackPhase::Paused},           {"waiting", TrackPhase::Waiting}};
  auto it = m.find(detail);
  return it == m.end() ? TrackPhase::Other : it->second;
}

// Relabels the compute in [from, to) as lost (a span that straddles `from` is split); returns its seconds.
double mark_lost(std::vector<TrackSpan>& spans, double from, double to) {
  double lost = 0;
  std::vector<TrackSpan> split;
  for (size_t i = spans.size(); i-- > 0 && spans[i].t1 > from;) {
    TrackSpan& s = spans[i];
    if (s.phase != TrackPhase::Compute || s.t0 >= to) continue;
    if (s.t0 < from) {
      split.push_back({from, s.t1, TrackPhase::Lost});
      lost += s.t1 - from;
      s.t1 = from;
    } else {
      s.phase = TrackPhase::Lost;
      lost += s.t1 - s.t0;
    }
  }
  for (const auto& s : split) spans.insert(std::upper_bound(spans.begin(), spans.end(), s, [](const TrackSpan& a, const TrackSpan& b) { return a.t0 < b.t0; }), s);
  return lost;
}

// Index of the first item whose time is >= t.
template <class T, class Time>
size_t first_at(const std::vector<T>& v, double t, Time time) {
  return size_t(std::partition_point(v.begin(), v.end(), [&](const T& x) { return time(x) < t; }) - v.begin());
}

ojson episodes_rows(const std::vector<Episode>& eps, size_t from, size_t to) {
  ojson rows = ojson::array();
  for (size_t i = from; i < to; ++i) {
    const Episode& e = eps[i];
    rows.push_back({e.t_s, e.cause, e.detected_s, e.resumed_s, e.lost_s, e.recovery});
  }
  return rows;
}

}  // namespace

const char* track_phase_name(TrackPhase p) {
  static const char* names[] = {"compute", "lost", "checkpoint", "detect", "restart", "reconfigure", "paused", "waiting", "other"};
  return names[size_t(p)];
}

std::string simulation_settings_path(const std::string& presets_dir) { return (fs::path(presets_dir) / "site" / "simulation.toml").string(); }

SimulationSettings load_simulation_settings(const std::string& path) {
  const toml::table t = read_toml_file(path);
  SimulationSettings s;
  auto fail = [&](const std::string& what) { throw PresetError(path + ": " + what); };
  if (auto v = t["scenario"].value<std::string>()) s.scenario = *v;
  else fail("'scenario' (a name under presets/sim) is required");
  s.policies = toml_strings(t["policies"].node());
  if (s.policies.empty()) fail("'policies' must list at least one recovery policy");
  for (const auto& p : s.policies) try {
      sim::parse_recovery(p);
    } catch (const std::exception& e) {
      fail("policies: " + std::string(e.what()));
    }
  const double hours = t["bucket_hours"].value<double>().value_or(2.0);
  if (!(hours >= 1.0 / 60 && hours <= 24 * 7)) fail("'bucket_hours' must be between one minute (0.0167) and a week (168)");
  s.bucket_s = hours * 3600;
  return s;
}

RecoveryTrack recovery_track(const sim::SimResult& run, const std::string& policy) {
  RecoveryTrack tr;
  tr.policy = policy;
  tr.end_s = double(run.end_ns) / 1e9;
  if (run.jobs.empty()) return tr;
  const std::string& job = run.jobs.front().id;
  bool started = false;
  std::string phase;
  double phase_t = 0, last_commit = 0, last_failure_t = -1;
  std::string last_failure;
  std::optional<Episode> open;
  for (const auto& ev : run.timeline) {
    const double t = double(ev.t_ns) / 1e9;
    if (ev.kind == "failure") {
      tr.failures.push_back(t);
      last_failure_t = t, last_failure = ev.subject;
      continue;
    }
    if (ev.subject != job) continue;
    if (ev.kind == "checkpoint") {
      tr.checkpoints.push_back(t);
      last_commit = t;
      continue;
    }
    if (ev.kind != "phase") continue;
    if (started && t > phase_t) tr.spans.push_back({phase_t, t, phase_of(phase)});
    started = ev.detail != "done";
    phase = ev.detail, phase_t = t;
    const TrackPhase p = phase_of(phase);
    if (p == TrackPhase::Compute || !started) {
      if (open) {
        open->resumed_s = t;
        if (open->detected_s < open->t_s) open->detected_s = t;
        tr.episodes.push_back(*open);
        open.reset();
      }
      continue;
    }
    if (!open && (p == TrackPhase::Detect || p == TrackPhase::Paused || p == TrackPhase::Waiting)) {
      Episode e;
      e.t_s = t, e.detected_s = -1, e.recovery = phase;
      e.cause = last_failure_t == t ? last_failure : p == TrackPhase::Paused ? "planned_maintenance" : "unknown";
      open = e;
      continue;
    }
    if (open && p != TrackPhase::Checkpoint) {
      if (open->detected_s < open->t_s) open->detected_s = t;
      open->recovery += ">" + phase;
      // A restart rolls back to the last committed checkpoint: the compute since then is redone.
      if (p == TrackPhase::Restart && open->lost_s == 0) open->lost_s = mark_lost(tr.spans, last_commit, open->t_s);
    }
  }
  if (started && tr.end_s > phase_t) tr.spans.push_back({phase_t, tr.end_s, phase_of(phase)});
  if (open) {
    open->resumed_s = tr.end_s;
    if (open->detected_s < open->t_s) open->detected_s = tr.end_s;
    tr.episodes.push_back(*open);
  }
  return tr;
}

ojson track_window(const RecoveryTrack& tr, double from_s, double to_s, size_t n, size_t max_episodes) {
  n = std::max<size_t>(1, n);
  const double width = (to_s - from_s) / double(n);
  constexpr size_t kPhases = size_t(TrackPhase::Count);
  std::vector<std::array<double, kPhases + 3>> b(n);
  for (auto& row : b) row.fill(0);
  auto bucket = [&](double t) { return std::min(n - 1, size_t(std::max(0.0, (t - from_s) / width))); };
  for (size_t i = first_at(tr.spans, from_s, [](const TrackSpan& s) { return s.t1; }); i < tr.spans.size() && tr.spans[i].t0 < to_s; ++i) {
    const TrackSpan& s = tr.spans[i];
    const double a = std::max(s.t0, from_s), z = std::min(s.t1, to_s);
    for (size_t k = bucket(a); k < n && a < z; ++k) {
      const double lo = from_s + double(k) * width, hi = lo + width;
      const double overlap = std::min(z, hi) - std::max(a, lo);
      if (overlap > 0) b[k][size_t(s.phase)] += overlap;
      if (hi >= z) break;
    }
  }
  auto count = [&](const std::vector<double>& times, size_t col) {
    for (size_t i = first_at(times, from_s, [](double t) { return t; }); i < times.size() && times[i] < to_s; ++i) b[bucket(times[i])][col] += 1;
  };
  count(tr.failures, kPhases);
  std::vector<double> starts;
  for (const auto& e : tr.episodes) starts.push_back(e.t_s);
  count(starts, kPhases + 1);
  count(tr.checkpoints, kPhases + 2);

  ojson columns = ojson::array({"t_s"});
  for (size_t p = 0; p < kPhases; ++p) columns.push_back(std::string(track_phase_name(TrackPhase(p))) + "_s");
  for (const char* c : {"failures", "interruptions", "checkpoints"}) columns.push_back(c);
  ojson rows = ojson::array();
  for (size_t k = 0; k < n; ++k) {
    ojson row = ojson::array({from_s + double(k) * width});
    for (double x : b[k]) row.push_back(x);
    rows.push_back(row);
  }
  // Interruptions that overlap the window.
  size_t first = first_at(tr.episodes, from_s, [](const Episode& e) { return e.resumed_s; }), last = first;
  while (last < tr.episodes.size() && tr.episodes[last].t_s < to_s) ++last;
  return {{"policy", tr.policy},
          {"from_s", from_s},
          {"to_s", to_s},
          {"bucket_s", width},
          {"columns", columns},
          {"rows", rows},
          {"episodes", {{"columns", {"t_s", "cause", "detected_s", "resumed_s", "lost_s", "recovery"}},
                        {"rows", episodes_rows(tr.episodes, first, std::min(last, first + max_episodes))}}},
          {"episodes_total", last - first}};
}

double scenario_gpus(const sim::Scenario& sc) {
  double gpus = 0;
  for (const auto& site : sc.sites) gpus += double(site.nodes) * double(site.gpus_per_node);
  return gpus;
}

double scenario_gpu_days(const sim::Scenario& sc) { return scenario_gpus(sc) * std::max(1.0, double(sc.horizon_ns) / 86400e9); }

PolicyRun run_policy(const sim::Scenario& sc, const std::string& policy, uint64_t seed, uint64_t max_events) {
  sim::SimOptions o;
  o.seed = seed, o.timeline = true, o.max_events = max_events;
  if (!policy.empty()) o.recovery = sim::parse_recovery(policy);
  PolicyRun r;
  r.result = sim::simulate(sc, o);
  r.track = recovery_track(r.result, policy.empty() ? std::string(sim::recovery_name(sc.jobs.front().policy.recovery)) : policy);
  r.result.timeline.clear(), r.result.utilisation.clear();  // the track holds what the view needs
  return r;
}

ojson simulation_view_json(const Registry& reg, const std::string& presets_dir, const SimulationSettings& settings) {
  const std::string file = (fs::path(presets_dir) / "sim" / (settings.scenario + ".toml")).string();
  sim::Scenario sc = sim::load_scenario_toml(file, reg.units());
  sim::attach_model_intervals(sc, reg);
  if (sc.needs_job_model()) sim::attach_job_model(sc, reg, PresetLibrary(reg, presets_dir));
  if (sc.jobs.empty()) throw PresetError(file + ": the Simulation view needs a scenario with a job");
  ojson runs = ojson::array(), published;
  for (const auto& policy : settings.policies) {
    const PolicyRun r = run_policy(sc, policy, sc.seed, sim::kDefaultMaxEvents);
    const ojson cli = ojson(sim::result_to_json(r.result));
    const ojson& job = cli["jobs"][0];
    if (published.is_null()) published = cli["published_comparison"];
    const size_t n = size_t(std::ceil(r.track.end_s / settings.bucket_s));
    ojson run{{"policy", policy},
              {"cli", "gpu-stack simulate presets/sim/" + settings.scenario + ".toml --policy " + policy + " --json"},
              {"headline", cli["headline"]},
              {"job", {{"id", job["id"]}, {"gpus", job["gpus"]}, {"ettr", job["ettr"]}, {"goodput_tokens_per_s", job["goodput_tokens_per_s"]},
                       {"lost_gpu_hours", job["lost_gpu_hours"]}, {"time", job["time"]}, {"work", job["work"]},
                       {"interruptions", job["interruptions"]}, {"interruptions_by_category", job["interruptions_by_category"]},
                       {"recovery", job["recovery"]}, {"checkpoints", {{"durable", job["checkpoints"]["durable"]}, {"memory", job["checkpoints"]["memory"]}}}}},
              {"timeline", track_window(r.track, 0, double(n) * settings.bucket_s, n, r.track.episodes.size())}};
    runs.push_back(run);
  }
  return {{"schema", "gpu-stack.site.simulation.v1"},
          {"scenario", {{"name", settings.scenario}, {"id", sc.id}, {"description", sc.description}, {"file", "presets/sim/" + settings.scenario + ".toml"},
                        {"seed", sc.seed}, {"horizon_s", double(sc.horizon_ns) / 1e9}, {"gpus", scenario_gpus(sc)}, {"hash", sc.hash()}}},
          {"bucket_s", settings.bucket_s},
          {"runs", runs},
          {"published", published}};
}

}  // namespace gs::site
