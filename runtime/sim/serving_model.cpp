#include "runtime/sim/serving_model.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <toml++/toml.h>

#include "runtime/jit/jit.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/uq/cone_builder.h"
#include "runtime/toml_file.h"

namespace gs::sim {
namespace {

uint32_t binding_var(const Registry& reg, const toml::table& doc, const char* table, const char* key, const std::string& path) {
  const toml::node* n = doc.at_path(std::string(table) + "." + key).node();
  if (!n || !n->is_string()) throw PresetError(path + ": [" + table + "] needs the string '" + key + "'");
  return lookup_variable(reg, *n->value<std::string>(), std::string("serving binding ") + table + "." + key);
}

}  // namespace

std::string default_serving_binding_path(const std::string& presets_dir) {
  return (std::filesystem::path(presets_dir) / "sim" / "serving-binding.toml").string();
}

ServingEngine ServingModelTables::engine(uint32_t max_batch) const {
  if (max_batch < 1 || max_batch > decode_step_s.size()) throw std::invalid_argument("serving engine: batch limit outside the model's table");
  ServingEngine e;
  e.max_batch = max_batch;
  e.kv_capacity_tokens = kv_capacity_tokens;
  const auto decode = decode_step_s;
  const auto prefill = prefill_s;
  e.decode_step_s = [decode](uint32_t b) { return decode.at(b - 1); };
  e.prefill_s = [prefill](uint32_t n) {
    if (n < 1 || n > prefill.size()) throw std::invalid_argument("serving engine: prompt of " + std::to_string(n) + " tokens outside the model's table");
    return prefill[n - 1];
  };
  return e;
}

ServingModelTables serving_tables_from_model(const Registry& reg, const ScenarioPoint& scenario, const std::string& path,
                                             uint32_t max_batch, uint32_t max_prompt) {
  const toml::table doc = read_toml_file(path);
  const uint32_t batch = binding_var(reg, doc, "vary", "batch", path), prompt = binding_var(reg, doc, "vary", "prompt_tokens", path);
  const std::vector<uint32_t> targets = {binding_var(reg, doc, "outputs", "decode_step", path), binding_var(reg, doc, "outputs", "prefill", path),
                                         binding_var(reg, doc, "outputs", "kv_capacity_tokens", path),
                                         binding_var(reg, doc, "outputs", "replica_power", path),
                                         binding_var(reg, doc, "outputs", "replica_cost_rate", path)};
  if (max_batch < 1 || max_prompt < 1) throw std::invalid_argument("serving tables need a batch limit and a prompt length of at least 1");

  Resolver resolver(reg, scenario.assignments, scenario.variants);
  ConeBuild build = build_cone(reg, resolver, scenario.assignments, targets, {batch, prompt}, true);
  if (!build.missing.empty()) throw PresetError(missing_inputs_message(reg, build.missing));
  Jit jit;
  const CompiledCone cone = jit.compile(build.program);
  auto column = [&](uint32_t var) {
    for (size_t i = 0; i < build.program.inputs.size(); ++i)
      if (build.program.inputs[i] == var) return i;
    return build.program.inputs.size();  // the outputs do not depend on it
  };
  const size_t cb = column(batch), cp = column(prompt), n_in = cone.n_inputs, n_out = cone.n_outputs;
  const double base_batch = cb < n_in ? build.base[cb] : NAN, base_prompt = cp < n_in ? build.base[cp] : NAN;
  auto evaluate = [&](double b, double n) {
    std::vector<double> in(build.base), out(n_out);
    if (cb < n_in) in[cb] = b;
    if (cp < n_in) in[cp] = n;
    cone.one(in.data(), out.data());
    return out;
  };
  auto positive = [](double x, const char* what) {
    if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument(std::string("the model gives no positive finite ") + what);
    return x;
  };
  if (!std::isfinite(base_prompt)) throw PresetError("the scenario states no prompt length; the decode step reads its context");
  ServingModelTables t;
  for (uint32_t b = 1; b <= max_batch; ++b) t.decode_step_s.push_back(positive(evaluate(b, base_prompt)[0], "decode step time"));
  for (uint32_t n = 1; n <= max_prompt; ++n) t.prefill_s.push_back(positive(evaluate(std::isfinite(base_batch) ? base_batch : 1, n)[1], "prefill time"));
  const auto at_scenario = evaluate(std::isfinite(base_batch) ? base_batch : 1, base_prompt);
  t.kv_capacity_tokens = positive(at_scenario[2], "KV capacity");
  t.replica_power_w = positive(at_scenario[3], "replica power");
  t.replica_cost_usd_per_s = at_scenario[4];
  if (!(t.replica_cost_usd_per_s >= 0) || !std::isfinite(t.replica_cost_usd_per_s)) throw std::invalid_argument("the model gives no finite replica cost rate");
  return t;
}

}  // namespace gs::sim
