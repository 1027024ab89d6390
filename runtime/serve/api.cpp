#include "runtime/serve/api.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <set>
#include <sstream>

#include "image/suggest.h"
#include "runtime/api/session.h"
#include "runtime/presets.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/interval_model.h"
#include "runtime/sim/scenario_toml.h"
#include "runtime/site/simulation.h"
#include "runtime/strategy/report.h"
#include "runtime/uq/commands.h"
#include "runtime/validate/validate.h"

namespace gs::serve {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// Bad input in a request; `hint` says what a good one looks like.
struct RequestError : std::runtime_error {
  RequestError(const std::string& message, std::string h) : std::runtime_error(message), hint(std::move(h)) {}
  std::string hint;
};

// The fields of one request's JSON object, read the way the command line reads its flags. Every field
// must be read: one the endpoint does not know is refused by name, so a misspelt flag is never ignored.
class Fields {
 public:
  Fields(const json& body, std::string usage) : body_(body), usage_(std::move(usage)) {}

  std::string text(const std::string& name, bool required, const std::string& fallback = "") {
    const json* v = take(name);
    if (!v) {
      if (required) fail("'" + name + "' is required");
      return fallback;
    }
    if (!v->is_string()) fail("'" + name + "' must be a string");
    return v->get<std::string>();
  }
  // A string or an array of strings (a repeatable flag).
  std::vector<std::string> texts(const std::string& name, bool required = false) {
    const json* v = take(name);
    std::vector<std::string> out;
    if (!v) {
      if (required) fail("'" + name + "' is required");
      return out;
    }
    if (v->is_string()) return {v->get<std::string>()};
    if (!v->is_array()) fail("'" + name + "' must be a string or an array of strings");
    for (const auto& e : *v) {
      if (!e.is_string()) fail("'" + name + "' must be a string or an array of strings");
      out.push_back(e.get<std::string>());
    }
    if (required && out.empty()) fail("'" + name + "' needs at least one value");
    return out;
  }
  bool flag(const std::string& name, bool fallback = false) {
    const json* v = take(name);
    if (!v) return fallback;
    if (!v->is_boolean()) fail("'" + name + "' must be true or false");
    return v->get<bool>();
  }
  // An integer in [lo, hi]; the cap is the server's when it is lower than the CLI's.
  uint64_t count(const std::string& name, uint64_t fallback, uint64_t lo, uint64_t hi) {
    const json* v = take(name);
    if (!v) return fallback;
    if (!v->is_number_integer() && !v->is_number_unsigned()) fail("'" + name + "' must be a whole number");
    if (v->is_number_integer() && v->get<int64_t>() < 0) fail("'" + name + "' must not be negative");
    const uint64_t x = v->get<uint64_t>();
    if (x < lo || x > hi)
      fail("'" + name + "' = " + std::to_string(x) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
           "] (this server's cap on work per request)");
    return x;
  }
  double number(const std::string& name, double fallback, double lo, double hi) {
    const json* v = take(name);
    if (!v) return fallback;
    if (!v->is_number()) fail("'" + name + "' must be a number");
    const double x = v->get<double>();
    if (!(x >= lo && x <= hi)) {
      std::ostringstream m;
      m << "'" << name << "' = " << x << " is outside [" << lo << ", " << hi << "] (this server's cap on work per request)";
      fail(m.str());
    }
    return x;
  }
  // Refuses fields no reader took.
  void done() const {
    for (auto it = body_.begin(); it != body_.end(); ++it)
      if (!taken_.count(it.key())) {
        std::vector<std::string> known(taken_.begin(), taken_.end());
        std::string hint = did_you_mean(it.key(), known);
        throw RequestError("unknown field '" + it.key() + "'" + (hint.empty() ? "" : "; " + hint), usage_);
      }
  }
  [[noreturn]] void fail(const std::string& message) const { throw RequestError(message, usage_); }

 private:
  const json* take(const std::string& name) {
    taken_.insert(name);
    auto it = body_.find(name);
    return it == body_.end() || it->is_null() ? nullptr : &*it;
  }
  const json& body_;
  std::string usage_;
  std::set<std::string> taken_;
};

const char* kScenarioFields = "\"preset\": [NAME...], \"workload\": [NAME...], \"assign\": [\"NAME=VALUE UNIT\"...], \"variant\": [\"NAME=KEY\"...]";

// What a good request to each endpoint looks like.
const std::map<std::string, std::string>& usages() {
  static const std::map<std::string, std::string> u = {
      {"resolve", std::string("POST /api/resolve {\"target\": NAME, ") + kScenarioFields + ", \"trace\": true, \"interval\": false, \"explain\": false}"},
      {"sweep", std::string("POST /api/sweep {\"targets\": [NAME...], \"vary\": [\"NAME=lo..hi:n UNIT\"...], \"zip\": false, \"engine\": \"jit\", ") +
                    kScenarioFields + "}"},
      {"uncertainty", std::string("POST /api/uncertainty {\"target\": NAME, \"samples\": N, \"seed\": S, ") + kScenarioFields + "}"},
      {"sensitivity", std::string("POST /api/sensitivity {\"target\": NAME, \"samples\": N, \"seed\": S, ") + kScenarioFields + "}"},
      {"plan", std::string("POST /api/plan {\"preset\": [NAME...], \"workload\": [NAME], \"fix\": [\"KNOB=VALUE\"...], \"objective\": NAME, "
                           "\"top\": K, \"serving\": false, \"limit\": [\"ttft_max=200ms\"...], \"assign\": [...], \"variant\": [...]}")},
      {"validate", "POST /api/validate {\"no_search\": false, \"cross_validate\": \"family\"} (the shipped published runs)"},
      {"simulation_timeline", "POST /api/simulation_timeline {\"scenario\": NAME (under presets/sim), \"policy\": NAME, \"seed\": S, "
                              "\"from_s\": 0, \"to_s\": END, \"buckets\": 120, \"max_episodes\": 500} (the Simulation view's recovery timeline)"},
      {"simulate", "POST /api/simulate {\"scenario\": NAME (under presets/sim), \"seed\": S, \"replicas\": R, \"max_gpu_days\": D, "
                   "\"max_events\": E, \"policy\": NAME, \"preset\": [NAME...]}"},
  };
  return u;
}

// A name the request gives for a file under `dir`: letters, digits, '_', '-', '.' and '/' between
// segments, never absolute, never '..'. Returns the canonical path of dir/NAME.toml, which must exist
// and stay inside `dir` (a symbolic link out of it is refused). Requests never name arbitrary files.
std::string file_in(const std::string& dir, const std::string& name, const std::string& what,
                    const std::function<std::vector<std::string>()>& known) {
  bool ok = !name.empty() && name.size() <= 200 && name.front() != '/' && name.back() != '/';
  for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.' || ch == '/');
  for (const auto& seg : fs::path(name)) ok = ok && seg != ".." && seg != "." && !seg.empty();
  if (!ok || name.ends_with(".toml"))
    throw PresetError(what + " '" + name + "' is not a name (letters, digits, _ - . and / between folders; no path, no .toml)");
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  const fs::path file = fs::weakly_canonical(fs::path(dir) / (name + ".toml"), ec);
  auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (ec || r != root.end() || !fs::is_regular_file(file, ec)) {
    const std::string hint = did_you_mean(name, known());
    throw PresetError("unknown " + what + " '" + name + "' (looked in " + dir + ")" + (hint.empty() ? "" : "; " + hint));
  }
  return file.string();
}

std::vector<std::string> toml_stems(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  return out;
}

// The scenario fields every model endpoint shares, read into the CLI's ScenarioInputs.
api::ScenarioInputs scenario_inputs(Fields& f, const PresetLibrary& lib, const std::string& presets_dir) {
  api::ScenarioInputs in;
  const auto names = [&] { return lib.names(); };
  for (const auto& p : f.texts("preset")) in.presets.push_back(file_in(presets_dir, p, "preset", names));
  for (const auto& w : f.texts("workload")) {
    std::string id = w;
    std::replace(id.begin(), id.end(), '-', '_');
    if (id.find('/') != std::string::npos) throw PresetError("workload '" + w + "' is a name from `gpu-stack workloads`, not a path");
    const fs::path dir = fs::path(presets_dir) / "workload";
    in.presets.push_back(file_in(dir.string(), id, "workload", [&] { return toml_stems(dir); }));
  }
  in.assigns = f.texts("assign");
  in.variants = f.texts("variant");
  return in;
}

}  // namespace

// A policy's recovery track, kept for the last few scenario, seed and policy asked.
struct TrackCache {
  std::list<std::pair<std::string, std::shared_ptr<const site::RecoveryTrack>>> tracks;  // most recent first
  static constexpr size_t kCapacity = 8;
};

namespace {

// POST /api/simulation_timeline (under the model lock): a policy's recovery track bucketed over a window.
Reply simulation_timeline(const Registry& reg, const std::string& presets_dir, const Limits& limits, TrackCache& cache, Fields& f,
                          const json& req) {
  const fs::path sim_dir = fs::path(presets_dir) / "sim";
  const std::string file = file_in(sim_dir.string(), f.text("scenario", true), "simulation scenario", [&] { return toml_stems(sim_dir); });
  const std::string policy = f.text("policy", true);
  try {
    sim::parse_recovery(policy);
  } catch (const std::exception& e) {
    f.fail(e.what());
  }
  std::optional<uint64_t> seed;
  if (req.contains("seed") && !req["seed"].is_null()) seed = f.count("seed", 0, 0, UINT64_MAX);
  const double from_s = f.number("from_s", 0, 0, 1e12);
  const double to_s = f.number("to_s", -1, -1, 1e12);
  const size_t buckets = f.count("buckets", 120, 1, limits.timeline_buckets);
  const size_t max_episodes = f.count("max_episodes", 500, 0, limits.timeline_episodes);
  f.done();
  sim::Scenario sc = sim::load_scenario_toml(file, reg.units());
  sim::attach_model_intervals(sc, reg);
  if (sc.jobs.empty()) f.fail("the scenario has no job, so it has no recovery timeline");
  if (site::scenario_gpu_days(sc) > limits.sim_gpu_days)
    f.fail("the scenario asks for more than " + std::to_string(uint64_t(limits.sim_gpu_days)) + " GPU-days (this server's cap per request)");
  const uint64_t s = seed.value_or(sc.seed);
  std::error_code ec;  // a changed scenario file is a new key
  const std::string key = file + "\n" + std::to_string(fs::last_write_time(file, ec).time_since_epoch().count()) + "\n" + std::to_string(s) + "\n" + policy;
  std::shared_ptr<const site::RecoveryTrack> track;
  for (auto it = cache.tracks.begin(); it != cache.tracks.end(); ++it)
    if (it->first == key) {
      cache.tracks.splice(cache.tracks.begin(), cache.tracks, it);
      track = it->second;
      break;
    }
  if (!track) {
    track = std::make_shared<const site::RecoveryTrack>(site::run_policy(sc, policy, s, limits.sim_events).track);
    cache.tracks.emplace_front(key, track);
    if (cache.tracks.size() > TrackCache::kCapacity) cache.tracks.pop_back();
  }
  const double end = to_s < 0 ? track->end_s : to_s;
  if (!(end > from_s)) f.fail("'to_s' must be after 'from_s'");
  auto j = site::track_window(*track, from_s, end, buckets, max_episodes);
  j["scenario"] = sc.id, j["seed"] = s, j["end_s"] = track->end_s;
  return {200, j.dump()};
}

}  // namespace


Reply error_reply(int status, const std::string& message, const std::string& hint) {
  // Messages quote what the request sent; bytes that are not UTF-8 are replaced rather than failing the reply.
  return {status, json{{"error", message}, {"hint", hint}}.dump(-1, ' ', false, json::error_handler_t::replace)};
}

struct Api::PresetCache {
  std::map<std::vector<std::string>, ScenarioPoint> points;  // by preset layers
  fs::file_time_type newest{};                                // newest change under the presets folder
  std::chrono::steady_clock::time_point checked{};
};

Api::Api(const Registry& reg, const Workspace& ws, Limits limits)
    : reg_(reg), presets_dir_(ws.presets_dir), image_path_(ws.image), data_dir_(ws.data_dir), limits_(limits),
      cache_(std::make_unique<PresetCache>()), tracks_(std::make_unique<TrackCache>()), resolve_cache_(std::make_unique<ResolveCache>(reg, limits.resolve_shapes)) {}

Api::~Api() = default;

ScenarioPoint Api::scenario(const PresetLibrary& lib, const api::ScenarioInputs& in) const {
  std::unique_lock<std::mutex> lock(presets_mutex_);
  PresetCache& c = *cache_;
  const auto now = std::chrono::steady_clock::now();
  if (now - c.checked > std::chrono::seconds(1)) {
    c.checked = now;
    fs::file_time_type newest{};
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(presets_dir_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      newest = std::max(newest, it->last_write_time(ec));
    if (newest != c.newest) c.points.clear(), c.newest = newest;
  }
  const std::vector<std::string> layers = api::preset_layers(lib, in);
  auto it = c.points.find(layers);
  if (it == c.points.end()) {
    if (c.points.size() >= 256) c.points.clear();  // bounded: requests choose the keys
    it = c.points.emplace(layers, api::preset_point(lib, in)).first;
  }
  ScenarioPoint s = it->second;
  lock.unlock();
  api::apply_overrides(reg_, in, s);
  return s;
}

const std::vector<std::string>& Api::endpoints() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : usages()) n.push_back(k);
    return n;
  }();
  return names;
}

Reply Api::health() const {
  json eps = json::object();
  for (const auto& [k, v] : usages()) eps[k] = v;
  json caps = {{"sweep_points", limits_.sweep_points}, {"samples", limits_.samples}, {"sobol_samples", limits_.sobol_samples},
               {"sim_gpu_days", limits_.sim_gpu_days}, {"sim_events", limits_.sim_events}, {"sim_replicas", limits_.sim_replicas},
               {"plan_top", limits_.plan_top}};
  return {200, json{{"ok", true}, {"image", image_path_}, {"endpoints", eps}, {"limits", caps}}.dump(2)};
}

Reply Api::post(const std::string& endpoint, const std::string& body) const {
  const auto usage = usages().find(endpoint);
  if (usage == usages().end()) {
    const std::string hint = did_you_mean(endpoint, endpoints());
    return error_reply(404, "unknown endpoint '/api/" + endpoint + "'" + (hint.empty() ? "" : "; " + hint), "GET /api/health lists the endpoints");
  }
  json req = json::parse(body.empty() ? std::string("{}") : body, nullptr, false);
  if (req.is_discarded()) return error_reply(400, "the request body is not JSON", usage->second);
  if (!req.is_object()) return error_reply(400, "the request body must be a JSON object", usage->second);
  Fields f(req, usage->second);
  try {
    PresetLibrary lib(reg_, presets_dir_);
    if (endpoint == "resolve") {
      const std::string target = f.text("target", true);
      api::ScenarioInputs in = scenario_inputs(f, lib, presets_dir_);
      ResolveOptions opt;
      opt.explain = f.flag("explain");
      const bool trace = f.flag("trace", true);
      const bool interval = f.flag("interval");
      f.done();
      const uint32_t t = lookup_variable(reg_, target, "target variable");
      const ScenarioPoint s = scenario(lib, in);
      // The compact answer comes from the interpreter on this thread; GiNaC only where it must.
      if (!trace && !opt.explain && !interval)
        if (auto fast = resolve_cache_->compact(s, t, model_)) return {200, std::move(*fast)};
      std::lock_guard<std::mutex> lock(model_);
      return {200, api::resolve_json(reg_, api::resolve(reg_, s, t, opt, interval ? api::kResolveIntervalSamples : 0), trace)};
    }
    std::lock_guard<std::mutex> lock(model_);
    if (endpoint == "sweep") {
      std::vector<std::string> names = f.texts("targets", true);
      std::vector<std::string> vary = f.texts("vary", true);
      const bool zip = f.flag("zip");
      const std::string engine = f.text("engine", false, "jit");
      api::ScenarioInputs in = scenario_inputs(f, lib, presets_dir_);
      f.done();
      std::vector<uint32_t> targets;
      for (const auto& n : names) targets.push_back(lookup_variable(reg_, n, "target variable"));
      std::vector<SweepAxis> axes = parse_sweep_axes(reg_, vary, limits_.sweep_points);
      size_t points = zip ? 0 : 1;
      for (const auto& a : axes) {
        points = zip ? std::max(points, a.values.size()) : points * std::max<size_t>(a.values.size(), 1);
        if (points > limits_.sweep_points)
          f.fail("the sweep has more than " + std::to_string(limits_.sweep_points) + " points (this server's cap per request); "
                 "use fewer or coarser --vary values, or the CLI's sweep --out for large grids");
      }
      const ScenarioPoint s = scenario(lib, in);
      return {200, json(sweep_report(reg_, run_sweep(reg_, s, targets, std::move(axes), zip, engine, 1), true)).dump(2)};
    }
    if (endpoint == "uncertainty" || endpoint == "sensitivity") {
      const bool sobol = endpoint == "sensitivity";
      SamplingRequest r;
      r.target = f.text("target", true);
      r.samples = f.count("samples", sobol ? 2000 : 20000, 1, sobol ? limits_.sobol_samples : limits_.samples);
      r.seed = f.count("seed", 1, 0, UINT64_MAX);
      r.threads = 1;
      api::ScenarioInputs in = scenario_inputs(f, lib, presets_dir_);
      f.done();
      const ScenarioPoint s = scenario(lib, in);
      return {200, (sobol ? json(sensitivity(reg_, s, r)) : json(uncertainty(reg_, s, r))).dump(2) + "\n"};
    }
    if (endpoint == "plan") {
      strategy::StrategyRequest r;
      r.fixes = f.texts("fix");
      r.objective = f.text("objective", false);
      r.top = f.count("top", 10, 1, limits_.plan_top);
      r.threads = 1;
      const bool serving = f.flag("serving");
      for (const auto& l : f.texts("limit")) {
        const auto eq = l.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == l.size())
          f.fail("bad limit '" + l + "': expected NAME=VALUE (for example ttft_max=200ms)");
        r.limits[l.substr(0, eq)] = l.substr(eq + 1);
      }
      if (!serving && !r.limits.empty()) f.fail("'limit' needs \"serving\": true");
      api::ScenarioInputs in = scenario_inputs(f, lib, presets_dir_);
      f.done();
      const api::PlanAnswer a = api::plan(reg_, lib, presets_dir_, in, "", serving, r);
      return {200, strategy::plan_json(reg_, a.space, a.result)};
    }
    if (endpoint == "validate") {
      validate::ValidateOptions o;
      o.search = !f.flag("no_search");
      o.cross_validate = f.text("cross_validate", false);
      if (!o.cross_validate.empty() && o.cross_validate != "family") f.fail("'cross_validate' must be \"family\"");
      f.done();
      o.data_dir = data_dir_;
      const validate::ValidateAnswer a = validate::validate_runs(reg_, lib, o);
      return {200, a.cross ? validate::cross_validation_json(*a.cross) : validate::report_json(*a.report)};
    }
    if (endpoint == "simulation_timeline") return simulation_timeline(reg_, presets_dir_, limits_, *tracks_, f, req);
    // simulate
    sim::SimulateArgs a;
    const fs::path sim_dir = fs::path(presets_dir_) / "sim";
    a.scenario = file_in(sim_dir.string(), f.text("scenario", true), "simulation scenario", [&] { return toml_stems(sim_dir); });
    if (req.contains("seed") && !req["seed"].is_null()) a.seed = f.count("seed", 0, 0, UINT64_MAX);
    a.replicas = uint32_t(f.count("replicas", 1, 1, limits_.sim_replicas));
    a.max_gpu_days = f.number("max_gpu_days", limits_.sim_gpu_days, 1, limits_.sim_gpu_days);
    a.max_events = f.count("max_events", limits_.sim_events, 1, limits_.sim_events);
    if (std::string p = f.text("policy", false); !p.empty()) {
      static const std::set<std::string> policies = {"restart", "wait_restore", "in_memory", "elastic", "adaptive"};
      if (!policies.count(p)) f.fail("unknown policy '" + p + "': use restart, wait_restore, in_memory, elastic or adaptive");
      a.policy = p;
    }
    std::vector<std::string> presets;
    for (const auto& p : f.texts("preset")) presets.push_back(file_in(presets_dir_, p, "preset", [&] { return lib.names(); }));
    f.done();
    a.image_path = image_path_, a.threads = 1;
    if (!presets.empty()) a.model = api::simulator_inputs(reg_, lib, presets);
    try {
      return {200, research::pretty_dump(research::Json(sim::simulate_runs(a)))};
    } catch (const sim::RunError& e) {
      // What the CLI prints on stderr: 400 for bad input (exit 2), 500 for a broken invariant (exit 1).
      return error_reply(e.failure == sim::RunFailure::invariant ? 500 : 400, e.what(), usage->second);
    }
  } catch (const RequestError& e) {
    return error_reply(400, e.what(), e.hint);
  } catch (const std::exception& e) {
    // The library's messages, as the command line prints them; a "did you mean" becomes the hint.
    std::string message = e.what();
    std::string hint = usage->second;
    if (auto at = message.find("; did you mean"); at != std::string::npos) hint = message.substr(at + 2), message.resize(at);
    return error_reply(400, message, hint);
  }
}

}  // namespace gs::serve
