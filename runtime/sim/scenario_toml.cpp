#include "runtime/sim/scenario_toml.h"
#include "image/text_file.h"
#include "runtime/toml_file.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace gs::sim {
namespace {

constexpr const char* kSchema = "gpu-stack.sim-scenario.v1";

// Collects problems instead of stopping at the first, so one run of the loader lists them all.
class Reader {
 public:
  Reader(const gs::UnitTable& units, Scenario& sc, std::string origin) : units_(units), sc_(sc), origin_(std::move(origin)) {}

  std::vector<std::string> problems;

  void problem(const std::string& path, const std::string& what) { problems.push_back(path + ": " + what); }

  void expect_keys(const toml::table& t, std::initializer_list<const char*> allowed, const std::string& path) {
    for (const auto& [key, node] : t) {
      bool ok = false;
      for (const char* a : allowed) ok |= key.str() == a;
      if (!ok) problem(path, fmt::format("unknown key '{}'", key.str()));
    }
  }

  // "54 day" in `unit`, after checking dimensions. A bare number is accepted only for dimensionless units.
  std::optional<double> convert(const toml::node& node, const std::string& unit, const std::string& path) {
    double number = 0;
    std::string unit_text;
    if (auto v = node.value<double>(); v && !node.is_string()) {
      number = *v;
    } else if (auto s = node.value<std::string>()) {
      if (!gs::split_quantity(*s, number, unit_text)) {
        problem(path, fmt::format("'{}' is not a number with a unit", *s));
        return std::nullopt;
      }
    } else {
      problem(path, "expected a quantity such as \"2 TB/s\"");
      return std::nullopt;
    }
    std::string err;
    auto given = units_.parse(unit_text.empty() ? "1" : unit_text, &err);
    auto want = units_.parse(unit);
    if (!given) {
      problem(path, fmt::format("unit '{}': {}", unit_text, err));
      return std::nullopt;
    }
    if (!want) throw std::logic_error("working unit '" + unit + "' is unknown to the unit table");
    if (!(given->dim == want->dim)) {
      problem(path, fmt::format("'{}' has dimension {} but {} is needed", unit_text.empty() ? "(none)" : unit_text,
                                units_.describe(given->dim), unit));
      return std::nullopt;
    }
    double value = number * given->scale / want->scale;
    if (!std::isfinite(value)) {
      problem(path, "value is not finite");
      return std::nullopt;
    }
    return value;
  }

  // Seconds to whole nanoseconds. A duration past ~292 years (int64 ns) or below zero is an input
  // error, not a cast: converting an out-of-range double to an integer is undefined behaviour.
  int64_t seconds_to_ns(double seconds, const std::string& path) {
    const double ns = std::ceil(seconds * 1e9);
    if (!(ns >= 0.0 && ns < 9.2e18)) {
      problem(path, fmt::format("duration {} s is outside 0 .. 9.2e9 s", seconds));
      return 0;
    }
    return static_cast<int64_t>(ns);
  }

  int64_t duration_ns(const toml::node* node, const std::string& path) {
    if (!node) return 0;
    auto s = convert(*node, "s", path);
    return s ? seconds_to_ns(*s, path) : 0;
  }

  void check_source(const std::string& source, const std::string& note, const std::string& path) {
    if (source == "assumption") {
      if (note.empty()) problem(path, "an assumption needs a note saying why the value is reasonable");
      return;
    }
    for (const auto& s : sc_.sources)
      if (s.id == source) return;
    problem(path, fmt::format("source '{}' is not declared under [sources]", source));
  }

  // { value = "...", source = "...", note = "..." }: a number about the world, with its provenance.
  std::optional<double> sourced(const toml::node* node, const std::string& unit, const std::string& path) {
    if (!node) return std::nullopt;
    const toml::table* t = node->as_table();
    if (!t) {
      problem(path, "expected { value = ..., source = ... }");
      return std::nullopt;
    }
    expect_keys(*t, {"value", "source", "note"}, path);
    std::string source = t->get("source") ? t->get("source")->value_or(std::string()) : "";
    std::string note = t->get("note") ? t->get("note")->value_or(std::string()) : "";
    if (source.empty()) problem(path, "every number about the world needs a source");
    else check_source(source, note, path);
    const toml::node* v = t->get("value");
    if (!v) {
      problem(path, "missing value");
      return std::nullopt;
    }
    auto value = convert(*v, unit, path);
    if (value) {
      std::string text = v->is_string() ? *v->value<std::string>() : research::format_double(*v->value<double>());
      sc_.provenance.push_back({path, text, *value, unit, source, note});
    }
    return value;
  }

  // { median = "30 min", sigma = 0.5, source = ..., note = ... }
  Lognormal lognormal(const toml::node* node, const std::string& path) {
    Lognormal out;
    const toml::table* t = node ? node->as_table() : nullptr;
    if (!t) {
      problem(path, "expected { median = ..., sigma = ..., source = ... }");
      return out;
    }
    expect_keys(*t, {"median", "sigma", "source", "note"}, path);
    std::string source = t->get("source") ? t->get("source")->value_or(std::string()) : "";
    std::string note = t->get("note") ? t->get("note")->value_or(std::string()) : "";
    if (source.empty()) problem(path, "a distribution needs a source");
    else check_source(source, note, path);
    if (auto m = t->get("median"); m) {
      if (auto v = convert(*m, "s", path + ".median")) out.median = *v;
    } else {
      problem(path, "missing median");
    }
    out.sigma = t->get("sigma") ? t->get("sigma")->value_or(-1.0) : -1.0;
    if (out.sigma < 0) problem(path, "sigma must be a number >= 0");
    sc_.provenance.push_back({path, fmt::format("lognormal(median {} s, sigma {})", out.median, out.sigma), out.median, "s", source, note});
    return out;
  }

  std::map<std::string, double> model_table(const toml::node* node, const std::string& path) {
    std::map<std::string, double> out;
    if (!node) return out;
    const toml::table* t = node->as_table();
    if (!t) {
      problem(path, "expected a table of model variables");
      return out;
    }
    for (const auto& [key, value] : *t) {
      std::string name(key.str());
      const ModelVariable* var = find_model_variable(name);
      if (!var) {
        problem(path, fmt::format("'{}' is not a variable the simulator reads", name));
        continue;
      }
      if (auto v = sourced(&value, var->unit, path + "." + name)) out[name] = *v;
    }
    return out;
  }

  std::string text(const toml::table& t, const char* key, const std::string& path, bool required = true) {
    auto v = t.get(key) ? t.get(key)->value<std::string>() : std::nullopt;
    if (!v && required) problem(path, fmt::format("missing text '{}'", key));
    return v.value_or("");
  }

  int64_t integer(const toml::table& t, const char* key, const std::string& path, int64_t fallback, bool required) {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) problem(path, fmt::format("missing integer '{}'", key));
      return fallback;
    }
    // Type first: toml++'s value<int64_t>() converts a float by a cast that is undefined past the
    // range of int64 (found by fuzz_scenario: seed = 20240e79).
    if (!n->is_integer()) {
      problem(path, fmt::format("'{}' must be an integer", key));
      return fallback;
    }
    return n->as_integer()->get();
  }

  bool flag(const toml::table& t, const char* key, const std::string& path) {
    const toml::node* n = t.get(key);
    if (!n) return false;
    if (!n->is_boolean()) problem(path, fmt::format("'{}' must be true or false", key));
    return n->value_or(false);
  }

  // The configuration of a site or job (node counts, degrees) is a fact about the world too.
  void config_source(const toml::table& t, const std::string& path) {
    std::string source = text(t, "source", path);
    if (!source.empty()) check_source(source, t.get("note") ? t.get("note")->value_or(std::string()) : "", path);
  }

  PolicySpec policy(const toml::table* t, const std::string& path) {
    PolicySpec p;
    if (!t) {
      problem(path, "every job needs a [job.policy] table");
      return p;
    }
    expect_keys(*t, {"label", "recovery", "checkpoint", "durable_every", "peer_group", "min_replica_fraction",
                     "prior_failures", "envelope", "sync", "migrate", "power_aware", "reconfigure"}, path);
    try {
      p.recovery = parse_recovery(text(*t, "recovery", path));
    } catch (const std::invalid_argument& e) {
      problem(path, e.what());
    }
    p.label = t->get("label") ? t->get("label")->value_or(std::string(recovery_name(p.recovery))) : recovery_name(p.recovery);
    std::string cadence = text(*t, "checkpoint", path);
    if (cadence == "daly") p.cadence = Cadence::daly;
    else if (cadence == "young") p.cadence = Cadence::young;
    else if (cadence == "none") p.cadence = Cadence::none;
    else if (cadence.size() > 4 && cadence.find("step") != std::string::npos) {
      p.cadence = Cadence::fixed_steps;
      p.cadence_value = std::strtod(cadence.c_str(), nullptr);
    } else if (!cadence.empty()) {
      p.cadence = Cadence::fixed_time;
      if (auto s = convert(toml::value<std::string>(cadence), "s", path + ".checkpoint")) p.cadence_value = *s;
    }
    p.durable_every = static_cast<uint32_t>(integer(*t, "durable_every", path, 0, false));
    p.peer_group_nodes = static_cast<uint32_t>(integer(*t, "peer_group", path, 2, false));
    p.min_replica_fraction = t->get("min_replica_fraction") ? t->get("min_replica_fraction")->value_or(-1.0) : 1.0;
    p.prior_failures = t->get("prior_failures") ? t->get("prior_failures")->value_or(-1.0) : 0.0;
    p.migrate = flag(*t, "migrate", path);
    p.power_aware = flag(*t, "power_aware", path);
    p.reconfigure = flag(*t, "reconfigure", path);
    if (const toml::table* env = t->get("envelope") ? t->get("envelope")->as_table() : nullptr) {
      expect_keys(*env, {"source", "ranges"}, path + ".envelope");
      p.envelope.source = text(*env, "source", path + ".envelope");
      if (const toml::array* ranges = env->get("ranges") ? env->get("ranges")->as_array() : nullptr)
        for (const auto& r : *ranges) {
          const toml::table* rt = r.as_table();
          if (!rt) continue;
          p.envelope.ranges.push_back({text(*rt, "feature", path + ".envelope"), rt->get("lo") ? rt->get("lo")->value_or(0.0) : 0.0,
                                       rt->get("hi") ? rt->get("hi")->value_or(0.0) : 0.0});
        }
    }
    if (const toml::node* s = t->get("sync")) {
      if (s->is_integer()) {
        p.local_steps = static_cast<uint32_t>(*s->value<int64_t>());
      } else if (const toml::table* st = s->as_table()) {
        expect_keys(*st, {"min", "max", "high", "low", "initial"}, path + ".sync");
        p.sync = SyncMode::adaptive;
        p.sync_min = static_cast<uint32_t>(integer(*st, "min", path + ".sync", 1, true));
        p.sync_max = static_cast<uint32_t>(integer(*st, "max", path + ".sync", 1, true));
        p.local_steps = static_cast<uint32_t>(integer(*st, "initial", path + ".sync", p.sync_min, false));
        p.sync_high = st->get("high") ? st->get("high")->value_or(-1.0) : -1.0;
        p.sync_low = st->get("low") ? st->get("low")->value_or(-1.0) : -1.0;
      } else {
        problem(path, "sync must be an integer or { min, max, high, low }");
      }
    }
    return p;
  }

 private:
  const gs::UnitTable& units_;
  Scenario& sc_;
  std::string origin_;
};

const toml::table* table_at(const toml::table& t, const char* key) { return t.get(key) ? t.get(key)->as_table() : nullptr; }

template <class F>
void each_table(const toml::table& t, const char* key, Reader& r, F&& f) {
  const toml::node* n = t.get(key);
  if (!n) return;
  const toml::array* a = n->as_array();
  if (!a) {
    r.problem(key, "expected an array of tables ([[" + std::string(key) + "]])");
    return;
  }
  size_t i = 0;
  for (const auto& item : *a) {
    if (const toml::table* it = item.as_table()) f(*it, fmt::format("{}[{}]", key, i));
    else r.problem(key, "expected tables");
    ++i;
  }
}

}  // namespace

Scenario parse_scenario_toml(const std::string& text, const gs::UnitTable& units, const std::string& origin,
                             const ModelValues* from_model) {
  const toml::table root = gs::parse_toml_text_as<std::invalid_argument>(text, origin);
  Scenario sc;
  Reader r(units, sc, origin);
  r.expect_keys(root, {"schema", "id", "description", "seed", "horizon", "power_sample", "sources", "model", "site",
                       "storage", "link", "job", "failure", "maintenance", "stragglers", "event", "published"}, "scenario");
  if (r.text(root, "schema", "scenario") != kSchema) r.problem("scenario", fmt::format("schema must be \"{}\"", kSchema));
  sc.id = r.text(root, "id", "scenario");
  sc.description = r.text(root, "description", "scenario", false);
  sc.seed = static_cast<uint64_t>(r.integer(root, "seed", "scenario", 0, true));
  sc.horizon_ns = (r.duration_ns(root.get("horizon"), "horizon"));
  if (!root.get("horizon")) r.problem("scenario", "missing horizon");
  sc.power_sample_ns = (r.duration_ns(root.get("power_sample"), "power_sample"));
  if (const toml::table* srcs = table_at(root, "sources"))
    for (const auto& [key, node] : *srcs) {
      const toml::table* s = node.as_table();
      if (!s) continue;
      r.expect_keys(*s, {"citation", "url"}, "sources." + std::string(key.str()));
      sc.sources.push_back({std::string(key.str()), r.text(*s, "citation", "sources." + std::string(key.str())),
                            s->get("url") ? s->get("url")->value_or(std::string()) : ""});
    }
  sc.model = r.model_table(root.get("model"), "model");
  if (from_model) {
    const std::string id = "model_preset_" + from_model->preset;
    sc.sources.push_back({id, "Resolved from the compiled gpu_stack model under preset '" + from_model->preset + "'", ""});
    for (const auto& [name, value] : from_model->values) {
      const ModelVariable* var = find_model_variable(name);
      // The model's value replaces the scenario's; drop the replaced value's provenance.
      std::erase_if(sc.provenance, [&name = name](const Sourced& p) { return p.path == "model." + name; });
      sc.model[name] = value;
      sc.provenance.push_back({"model." + name, fmt::format("{} {}", value, var->unit), value, var->unit, id,
                               "computed by the model's compiled cone"});
    }
  }

  each_table(root, "storage", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"id", "site", "write_bw", "read_bw"}, path);
    StorageSpec s;
    s.id = r.text(t, "id", path);
    s.site = r.text(t, "site", path, false);
    s.write_bw = r.sourced(t.get("write_bw"), "byte/s", "storage." + s.id + ".write_bw").value_or(0);
    s.read_bw = r.sourced(t.get("read_bw"), "byte/s", "storage." + s.id + ".read_bw").value_or(0);
    sc.storages.push_back(s);
  });
  each_table(root, "site", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"id", "nodes", "gpus_per_node", "storage", "source", "note", "base_power", "state_io_bw", "grid_limit",
                      "cooling_capacity", "model"}, path);
    SiteSpec s;
    s.id = r.text(t, "id", path);
    std::string p = "site." + s.id;
    r.config_source(t, p);
    s.nodes = static_cast<uint32_t>(r.integer(t, "nodes", p, 0, true));
    s.gpus_per_node = static_cast<uint32_t>(r.integer(t, "gpus_per_node", p, 0, true));
    s.storage = r.text(t, "storage", p, false);
    s.base_power_w = r.sourced(t.get("base_power"), "W", p + ".base_power").value_or(0);
    s.state_io_bw = r.sourced(t.get("state_io_bw"), "byte/s", p + ".state_io_bw");
    s.grid_limit_w = r.sourced(t.get("grid_limit"), "W", p + ".grid_limit");
    s.cooling_capacity_w = r.sourced(t.get("cooling_capacity"), "W", p + ".cooling_capacity");
    s.model = r.model_table(t.get("model"), p + ".model");
    sc.sites.push_back(s);
  });
  each_table(root, "link", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"id", "a", "b", "bandwidth", "latency"}, path);
    LinkSpec l;
    l.id = r.text(t, "id", path);
    l.a = r.text(t, "a", path);
    l.b = r.text(t, "b", path);
    l.bandwidth = r.sourced(t.get("bandwidth"), "byte/s", "link." + l.id + ".bandwidth").value_or(0);
    l.latency_ns = r.seconds_to_ns(r.sourced(t.get("latency"), "s", "link." + l.id + ".latency").value_or(0), "link." + l.id + ".latency");
    sc.links.push_back(l);
  });
  each_table(root, "job", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"id", "source", "note", "placement", "replica_nodes", "target_steps", "start", "checkpoint_storage",
                      "sync_bytes", "trace_phases", "policy", "model", "power_cap", "model_preset", "reconfigure"}, path);
    JobSpec j;
    j.id = r.text(t, "id", path);
    std::string p = "job." + j.id;
    r.config_source(t, p);
    if (const toml::array* pl = t.get("placement") ? t.get("placement")->as_array() : nullptr)
      for (const auto& item : *pl)
        if (const toml::table* pt = item.as_table()) {
          r.expect_keys(*pt, {"site", "nodes", "speed"}, p + ".placement");
          j.placement.push_back({r.text(*pt, "site", p + ".placement"),
                                 static_cast<uint32_t>(r.integer(*pt, "nodes", p + ".placement", 0, true)),
                                 pt->get("speed") ? pt->get("speed")->value_or(0.0) : 1.0});
        }
    j.replica_nodes = static_cast<uint32_t>(r.integer(t, "replica_nodes", p, 1, true));
    j.target_steps = static_cast<uint64_t>(r.integer(t, "target_steps", p, 0, false));
    j.start_ns = (r.duration_ns(t.get("start"), p + ".start"));
    j.checkpoint_storage = r.text(t, "checkpoint_storage", p, false);
    j.sync_bytes = r.sourced(t.get("sync_bytes"), "byte", p + ".sync_bytes").value_or(0);
    j.trace_phases = t.get("trace_phases") ? t.get("trace_phases")->value_or(false) : false;
    if (const toml::node* cap = t.get("power_cap")) {
      if (const toml::table* ct = cap->as_table()) {
        r.expect_keys(*ct, {"board", "clock_share", "busy_power"}, p + ".power_cap");
        PowerCapPoint pc;
        pc.board_w = r.sourced(ct->get("board"), "W", p + ".power_cap.board").value_or(0);
        // Without a clock share of its own the cap takes the model's (the job's model_preset; attach_job_model).
        if (const auto share = r.sourced(ct->get("clock_share"), "1", p + ".power_cap.clock_share")) pc.clock_share = *share;
        else pc.clock_share = 0, pc.clock_share_from_model = true;  // 0 until the model fills it
        pc.busy_w = r.sourced(ct->get("busy_power"), "W", p + ".power_cap.busy_power").value_or(0);
        j.power_cap = pc;
      } else {
        r.problem(p + ".power_cap", "must be a table { board, clock_share, busy_power }, each with a source");
      }
    }
    j.model_preset = r.text(t, "model_preset", p, false);
    if (const toml::node* rc = t.get("reconfigure")) {
      if (const toml::table* rt = rc->as_table()) {
        r.expect_keys(*rt, {"cost"}, p + ".reconfigure");
        ReconfigureSpec spec;
        if (const auto cost = r.sourced(rt->get("cost"), "s", p + ".reconfigure.cost")) spec.cost_s = *cost;
        else r.problem(p + ".reconfigure", "needs 'cost' (one change of data-parallel degree) with its source");
        j.reconfigure = spec;
      } else {
        r.problem(p + ".reconfigure", "must be a table { cost }, with a source");
      }
    }
    j.policy = r.policy(table_at(t, "policy"), p + ".policy");
    j.model = r.model_table(t.get("model"), p + ".model");
    sc.jobs.push_back(j);
  });
  each_table(root, "failure", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"id", "category", "unit", "domain_nodes", "removes_node", "observed", "repair", "detection", "diagnosis", "shape"}, path);
    FailureClass f;
    f.id = r.text(t, "id", path);
    std::string p = "failure." + f.id;
    f.category = r.text(t, "category", p);
    std::string unit = r.text(t, "unit", p);
    if (unit == "gpu") f.unit = FailureUnit::gpu;
    else if (unit == "node") f.unit = FailureUnit::node;
    else if (unit == "job") f.unit = FailureUnit::job;
    else if (unit == "domain") f.unit = FailureUnit::domain;
    else r.problem(p, "unit must be gpu, node, domain or job");
    if (f.unit == FailureUnit::domain) f.domain_nodes = static_cast<uint32_t>(r.integer(t, "domain_nodes", p, 0, true));
    else if (t.get("domain_nodes")) r.problem(p, "domain_nodes applies only to unit = \"domain\"");
    f.detection_s = r.sourced(t.get("detection"), "s", p + ".detection");
    f.diagnosis_s = r.sourced(t.get("diagnosis"), "s", p + ".diagnosis");
    f.weibull_shape = r.sourced(t.get("shape"), "1", p + ".shape").value_or(1.0);
    f.removes_node = t.get("removes_node") ? t.get("removes_node")->value_or(true) : f.unit != FailureUnit::job;
    // A rate is never typed in: it is derived from what a source observed, count / (window x fleet size).
    if (const toml::table* obs = table_at(t, "observed")) {
      r.expect_keys(*obs, {"count", "window", "units", "source", "note"}, p + ".observed");
      int64_t count = r.integer(*obs, "count", p + ".observed", 0, true);
      int64_t units_n = r.integer(*obs, "units", p + ".observed", 0, true);
      double window_s = r.duration_ns(obs->get("window"), p + ".observed.window") / 1e9;
      std::string source = r.text(*obs, "source", p + ".observed");
      std::string note = obs->get("note") ? obs->get("note")->value_or(std::string()) : "";
      r.check_source(source, note, p + ".observed");
      if (count < 0 || units_n <= 0 || window_s <= 0) r.problem(p + ".observed", "count >= 0, units > 0 and a positive window are needed");
      else {
        f.rate_per_unit_s = double(count) / (window_s * double(units_n));
        f.observed_count = static_cast<uint64_t>(count);
        f.observed_units = static_cast<uint64_t>(units_n);
        f.observed_window_s = window_s;
      }
      sc.provenance.push_back({p + ".observed", fmt::format("{} in {} s over {} {}", count, window_s, units_n, unit),
                               f.rate_per_unit_s, "1/s per " + unit, source, note});
    } else {
      r.problem(p, "needs observed = { count, window, units, source }");
    }
    if (f.removes_node) f.repair = r.lognormal(t.get("repair"), p + ".repair");
    sc.failures.push_back(f);
  });
  if (const toml::table* m = table_at(root, "maintenance")) {
    r.expect_keys(*m, {"observed", "notice", "duration"}, "maintenance");
    if (const toml::table* obs = table_at(*m, "observed")) {
      r.expect_keys(*obs, {"count", "window", "jobs", "source", "note"}, "maintenance.observed");
      int64_t count = r.integer(*obs, "count", "maintenance.observed", 0, true);
      int64_t jobs = r.integer(*obs, "jobs", "maintenance.observed", 1, true);
      double window_s = r.duration_ns(obs->get("window"), "maintenance.observed.window") / 1e9;
      std::string source = r.text(*obs, "source", "maintenance.observed");
      std::string note = obs->get("note") ? obs->get("note")->value_or(std::string()) : "";
      r.check_source(source, note, "maintenance.observed");
      if (window_s > 0 && jobs > 0) sc.maintenance.rate_per_job_s = double(count) / (window_s * double(jobs));
      sc.provenance.push_back({"maintenance.observed", fmt::format("{} in {} s over {} job(s)", count, window_s, jobs),
                               sc.maintenance.rate_per_job_s, "1/s per job", source, note});
    }
    sc.maintenance.notice_ns = r.seconds_to_ns(r.sourced(m->get("notice"), "s", "maintenance.notice").value_or(0), "maintenance.notice");
    sc.maintenance.duration = r.lognormal(m->get("duration"), "maintenance.duration");
  }
  if (const toml::table* s = table_at(root, "stragglers")) {
    r.expect_keys(*s, {"static_sigma", "transient_rate", "transient_duration", "transient_slowdown", "step_jitter_sigma"}, "stragglers");
    sc.stragglers.static_sigma = r.sourced(s->get("static_sigma"), "1", "stragglers.static_sigma").value_or(0);
    sc.stragglers.transient_rate_per_node_s = r.sourced(s->get("transient_rate"), "1/s", "stragglers.transient_rate").value_or(0);
    if (s->get("transient_duration")) sc.stragglers.transient_duration = r.lognormal(s->get("transient_duration"), "stragglers.transient_duration");
    sc.stragglers.transient_slowdown = r.sourced(s->get("transient_slowdown"), "1", "stragglers.transient_slowdown").value_or(1);
    sc.stragglers.step_jitter_sigma = r.sourced(s->get("step_jitter_sigma"), "1", "stragglers.step_jitter_sigma").value_or(0);
  }
  each_table(root, "event", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"kind", "id", "site", "job", "start", "end", "limit", "notice", "cause"}, path);
    TimedEvent e;
    std::string kind = r.text(t, "kind", path);
    if (kind == "grid_limit") e.kind = TimedKind::grid_limit;
    else if (kind == "cooling_limit") e.kind = TimedKind::cooling_limit;
    else if (kind == "site_outage") e.kind = TimedKind::site_outage;
    else if (kind == "preemption") e.kind = TimedKind::preemption;
    else r.problem(path, "kind must be grid_limit, cooling_limit, site_outage or preemption");
    e.id = r.text(t, "id", path);
    e.site = r.text(t, "site", path, false);
    e.job = r.text(t, "job", path, false);
    e.cause = r.text(t, "cause", path);
    e.start_ns = (r.duration_ns(t.get("start"), path + ".start"));
    e.end_ns = (r.duration_ns(t.get("end"), path + ".end"));
    e.notice_ns = (r.duration_ns(t.get("notice"), path + ".notice"));
    if (const toml::node* lim = t.get("limit")) e.limit_w = r.convert(*lim, "W", path + ".limit").value_or(0);
    sc.events.push_back(e);
  });
  each_table(root, "published", r, [&](const toml::table& t, const std::string& path) {
    r.expect_keys(t, {"id", "metric", "relation", "value", "tolerance", "source", "note"}, path);
    PublishedFigure f;
    f.id = r.text(t, "id", path);
    f.metric = r.text(t, "metric", path);
    f.relation = r.text(t, "relation", path);
    f.value = t.get("value") ? t.get("value")->value_or(std::nan("")) : std::nan("");
    if (!std::isfinite(f.value)) r.problem(path, "value must be a number");
    f.tolerance = t.get("tolerance") ? t.get("tolerance")->value_or(-1.0) : 0.0;
    f.source = r.text(t, "source", path);
    f.note = t.get("note") ? t.get("note")->value_or(std::string()) : "";
    if (f.source == "assumption") r.problem(path, "a published figure needs a declared source, not an assumption");
    else r.check_source(f.source, f.note, path);
    sc.published.push_back(f);
  });
  if (!r.problems.empty()) throw std::invalid_argument(fmt::format("{}: {}", origin, fmt::join(r.problems, "; ")));
  try {
    sc.finalize();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(origin + ": " + e.what());
  }
  return sc;
}

Scenario load_scenario_toml(const std::string& path, const gs::UnitTable& units, const ModelValues* from_model) {
  std::string text;
  try {
    text = read_text_file(path, "scenario");
  } catch (const TextFileError& e) {
    throw std::invalid_argument(e.what());
  }
  return parse_scenario_toml(text, units, path, from_model);
}

}  // namespace gs::sim
