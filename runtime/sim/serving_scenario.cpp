#include "runtime/sim/serving_scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <toml++/toml.h>

#include "runtime/toml_file.h"

namespace gs::sim {
namespace {

constexpr const char* kSchema = "gpu-stack.serving-scenario.v1";

[[noreturn]] void bad(const std::string& path, const toml::node* n, const std::string& what, const std::string& hint = "") {
  std::string where = path;
  if (n && n->source().begin.line) where += ":" + std::to_string(n->source().begin.line) + ":" + std::to_string(n->source().begin.column);
  throw PresetError(where + ": " + what + (hint.empty() ? "" : " (hint: " + hint + ")"));
}

double number(const std::string& path, const toml::table& t, const std::string& key, const toml::node* parent) {
  const toml::node* n = t.get(key);
  if (!n) bad(path, parent, "missing number '" + key + "'");
  if (auto v = n->value<double>()) return *v;
  bad(path, n, "'" + key + "' must be a number");
}

uint32_t whole(const std::string& path, const toml::table& t, const std::string& key, const toml::node* parent, uint32_t low) {
  const double x = number(path, t, key, parent);
  if (!(x >= low) || x > 1e9 || x != std::floor(x)) bad(path, t.get(key), "'" + key + "' must be a whole number of at least " + std::to_string(low));
  return uint32_t(x);
}

const toml::table& table(const std::string& path, const toml::table& doc, const std::string& key) {
  const toml::node* n = doc.get(key);
  if (!n || !n->is_table()) bad(path, n, "needs the table [" + key + "]");
  return *n->as_table();
}

LengthDistribution length_spec(const std::string& path, const toml::table& lengths, const std::string& key) {
  const toml::node* n = lengths.get(key);
  if (!n || !n->is_table()) bad(path, n ? n : &lengths, "[lengths] needs '" + key + "' as { dist = \"fixed\", tokens = N } or { dist = \"uniform\", low = A, high = B }, or a trace");
  const toml::table& t = *n->as_table();
  const std::string dist = t["dist"].value_or(std::string());
  LengthDistribution d;
  if (dist == "fixed") {
    d.kind = LengthDistribution::Kind::fixed;
    d.low = d.high = whole(path, t, "tokens", n, 1);
  } else if (dist == "uniform") {
    d.kind = LengthDistribution::Kind::uniform;
    d.low = whole(path, t, "low", n, 1), d.high = whole(path, t, "high", n, 1);
    if (d.high < d.low) bad(path, n, "'" + key + "': high must be at least low");
  } else {
    bad(path, n, "'" + key + "': unknown dist '" + dist + "'", "fixed or uniform; a measured distribution is a trace");
  }
  return d;
}

}  // namespace

void load_length_trace(const std::string& trace_path, ServingWorkload& w) {
  std::ifstream in(trace_path);
  if (!in) throw PresetError(trace_path + ": cannot read the length trace");
  std::string line;
  std::getline(in, line);
  if (line.rfind("prompt_tokens,output_tokens", 0) != 0) bad(trace_path, nullptr, "the header must be prompt_tokens,output_tokens");
  w.prompt = {LengthDistribution::Kind::empirical, 1, 1, {}};
  w.output = {LengthDistribution::Kind::empirical, 1, 1, {}};
  for (size_t row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    std::istringstream s(line);
    long long p = 0, o = 0;
    char comma = 0;
    if (!(s >> p >> comma >> o) || comma != ',' || p < 1 || o < 1 || p > 1'000'000 || o > 1'000'000)
      bad(trace_path + ":" + std::to_string(row), nullptr, "a row must hold two token counts in [1, 1e6]");
    w.prompt.values.push_back(uint32_t(p));
    w.output.values.push_back(uint32_t(o));
  }
  if (w.prompt.values.empty()) bad(trace_path, nullptr, "the trace has no rows");
  w.paired_lengths = true;
}

uint32_t longest_prompt(const ServingWorkload& w) {
  const LengthDistribution& d = w.prompt;
  return std::max(1u, d.kind == LengthDistribution::Kind::empirical ? *std::max_element(d.values.begin(), d.values.end()) : d.high);
}

ServingScenario load_serving_scenario(const std::string& path) {
  const toml::table doc = read_toml_file(path);
  ServingScenario sc;
  sc.path = path;
  if (doc["schema"].value_or(std::string()) != kSchema) bad(path, doc.get("schema"), std::string("schema must be \"") + kSchema + "\"");
  sc.name = doc["name"].value_or(std::string());
  sc.description = doc["description"].value_or(std::string());
  sc.preset = doc["preset"].value_or(std::string());
  if (sc.name.empty() || sc.preset.empty()) bad(path, nullptr, "needs 'name' and 'preset' (a serving preset, e.g. serving/llama3_70b_8xh100_tp8)");
  const toml::node* seed = doc.get("seed");
  if (!seed || !seed->is_integer() || *seed->value<int64_t>() < 0) bad(path, seed, "needs a non-negative integer 'seed'");
  sc.seed = uint64_t(*seed->value<int64_t>());
  sc.replicas = doc.get("replicas") ? whole(path, doc, "replicas", nullptr, 1) : 1;
  if (sc.replicas > 4096) bad(path, doc.get("replicas"), "at most 4096 replicas");
  sc.max_batch = whole(path, doc, "max_batch", nullptr, 1);
  if (sc.max_batch > 4096) bad(path, doc.get("max_batch"), "'max_batch' is at most 4096");
  sc.workload.horizon_s = number(path, doc, "horizon_s", nullptr);
  sc.workload.warmup_s = number(path, doc, "warmup_s", nullptr);
  if (!(sc.workload.warmup_s >= 0 && sc.workload.horizon_s > sc.workload.warmup_s && sc.workload.horizon_s <= 7 * 86400.0))
    bad(path, doc.get("horizon_s"), "needs 0 <= warmup_s < horizon_s <= one week");

  const toml::table& arrivals = table(path, doc, "arrivals");
  if (arrivals["process"].value_or(std::string()) != "poisson") bad(path, arrivals.get("process"), "[arrivals] process must be \"poisson\"");
  sc.workload.rate_per_s = number(path, arrivals, "rate_per_s", &arrivals);
  if (!(sc.workload.rate_per_s > 0) || sc.workload.rate_per_s > 1e5) bad(path, arrivals.get("rate_per_s"), "rate_per_s must be in (0, 1e5]");
  // The work cap: the arrivals a run may draw.
  if (sc.workload.rate_per_s * sc.workload.horizon_s > 5e6)
    bad(path, arrivals.get("rate_per_s"), "more than five million requests expected in the horizon", "shorten horizon_s or lower the rate");

  const toml::table& lengths = table(path, doc, "lengths");
  if (const toml::node* trace = lengths.get("trace")) {
    if (!trace->is_string()) bad(path, trace, "'trace' must be a path (relative to the scenario file)");
    const std::filesystem::path file = std::filesystem::path(path).parent_path() / *trace->value<std::string>();
    if (!std::filesystem::is_regular_file(file)) bad(path, trace, "no length trace at '" + file.string() + "'");
    load_length_trace(file.lexically_normal().string(), sc.workload);
  } else {
    sc.workload.prompt = length_spec(path, lengths, "prompt");
    sc.workload.output = length_spec(path, lengths, "output");
  }

  const toml::table& slo = table(path, doc, "slo");
  sc.ttft_max_s = number(path, slo, "ttft_max_s", &slo), sc.tpot_max_s = number(path, slo, "tpot_max_s", &slo);
  if (!(sc.ttft_max_s > 0 && sc.tpot_max_s > 0)) bad(path, &slo, "the latency targets must be positive");

  for (const auto* t : {&arrivals, &lengths, &slo}) {
    const std::string src = (*t)["source"].value_or(std::string());
    if (src.empty()) bad(path, t, "every table states its 'source' (or 'assumption: ...')");
    sc.sources.push_back(src);
  }
  if (const toml::node* a = doc.get("assign")) {
    if (!a->is_table()) bad(path, a, "[assign] must be a table of \"variable\" = \"quantity\"");
    for (const auto& [k, v] : *a->as_table()) {
      if (!v.is_string() && !v.is_number()) bad(path, &v, "[assign] \"" + std::string(k.str()) + "\" must be a quantity (\"400 W\") or a number");
      sc.assign.emplace_back(std::string(k.str()), v.is_string() ? *v.value<std::string>() : std::to_string(*v.value<double>()));
    }
  }
  return sc;
}

ServingModelTables serving_tables_at(const Registry& reg, const PresetLibrary& lib, const std::string& preset, const Assignments& assign,
                                     const std::string& where, uint32_t max_batch, uint32_t max_prompt) {
  const Preset p = lib.load(preset);
  ScenarioPoint point{p.assignments, p.variants, {}};
  for (const auto& [name, text] : assign) {
    const uint32_t var = lookup_variable(reg, name, where);
    point.assignments[var] = parse_quantity(reg, var, text);
  }
  return serving_tables_from_model(reg, point, default_serving_binding_path(lib.dir()), max_batch, max_prompt);
}

ServingModelTables serving_tables_for(const Registry& reg, const PresetLibrary& lib, const ServingScenario& sc) {
  return serving_tables_at(reg, lib, sc.preset, sc.assign, sc.path + ": [assign]", sc.max_batch, longest_prompt(sc.workload));
}

ServingSimResult run_serving(const ServingScenario& sc, const ServingModelTables& tables, uint64_t seed) {
  ServingSimResult out;
  out.scenario = sc;
  out.seed = seed;
  const ServingEngine engine = tables.engine(sc.max_batch);
  // A router sends each request of the deployment's stream to a replica at random (its own stream of the
  // seed), so the same seed serves the same requests whatever the replica count (common random numbers).
  std::vector<RequestRecord> drawn = draw_requests(sc.workload, seed);
  std::vector<std::vector<RequestRecord>> per_replica(sc.replicas);
  Rng router(derive_seed(seed, 0x5e44));
  for (const auto& q : drawn) per_replica[sc.replicas == 1 ? 0 : router.below(sc.replicas)].push_back(q);
  double busy = 0, batch = 0;
  for (uint32_t r = 0; r < sc.replicas; ++r) {
    ServingRun run = serve_requests(std::move(per_replica[r]), sc.workload, engine);
    busy += run.summary.busy_fraction, batch += run.summary.mean_batch;
    out.requests.insert(out.requests.end(), run.requests.begin(), run.requests.end());
    out.replica_of.insert(out.replica_of.end(), run.requests.size(), r);
  }
  const double t0 = sc.workload.warmup_s, t1 = sc.workload.horizon_s, window = t1 - t0;
  ServingRun all;
  all.requests = out.requests;
  out.summary = summarize_requests(all.requests, t0, t1);
  out.summary.busy_fraction = busy / sc.replicas;  // mean over replicas
  out.summary.mean_batch = batch / sc.replicas;
  out.slo_attainment = slo_attainment(all, sc.ttft_max_s, sc.tpot_max_s, t0);
  out.goodput_tokens_per_s = slo_goodput_tokens_per_s(all, sc.ttft_max_s, sc.tpot_max_s, t0, t1);

  ServingModelPoint& m = out.model;
  m.decode_step_batch1_s = tables.decode_step_s.front();
  m.decode_step_max_batch_s = tables.decode_step_s.at(sc.max_batch - 1);
  const uint32_t mean_prompt = std::clamp<uint32_t>(uint32_t(std::lround(sc.workload.prompt.mean())), 1, uint32_t(tables.prefill_s.size()));
  m.prefill_mean_prompt_s = tables.prefill_s.at(mean_prompt - 1);
  m.kv_capacity_tokens = tables.kv_capacity_tokens, m.replica_power_w = tables.replica_power_w, m.replica_cost_usd_per_s = tables.replica_cost_usd_per_s;

  // Replicas are held, and draw the model's serving power, through the whole window, idle or not.
  const double tokens = out.summary.output_tokens_per_s * window, good = out.goodput_tokens_per_s * window;
  out.energy_j = tables.replica_power_w * sc.replicas * window;
  out.cost_usd = tables.replica_cost_usd_per_s * sc.replicas * window;
  out.energy_per_output_token_j = tokens > 0 ? out.energy_j / tokens : INFINITY;
  out.cost_per_million_output_tokens_usd = tokens > 0 ? out.cost_usd / tokens * 1e6 : INFINITY;
  out.cost_per_million_goodput_tokens_usd = good > 0 ? out.cost_usd / good * 1e6 : INFINITY;
  return out;
}

ServingSimResult run_serving_scenario(const Registry& reg, const PresetLibrary& lib, const ServingScenario& sc, uint64_t seed) {
  return run_serving(sc, serving_tables_for(reg, lib, sc), seed);
}

}  // namespace gs::sim
