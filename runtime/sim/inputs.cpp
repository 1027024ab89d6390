#include "runtime/sim/inputs.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "runtime/presets.h"
#include "image/text_file.h"
#include "runtime/toml_file.h"

namespace gs::sim {

namespace {

// The roles the engine reads below; the bindings file must bind each exactly once.
const std::vector<std::string>& engine_roles() {
  static const std::vector<std::string> roles = {
      "t_step", "t_exposed_comm", "tokens_per_step", "flops_per_step", "state_bytes", "restart_overhead", "detection",
      "reconfig", "memory_ckpt", "memory_restore", "state_transfer_bw", "gpu_busy_w", "gpu_comm_w", "gpu_idle_w",
      "node_host_w", "pue", "price_energy", "price_gpu"};
  return roles;
}

InputDomain parse_domain(const std::string& s, const std::string& where) {
  if (s == "positive") return InputDomain::positive;
  if (s == "nonnegative") return InputDomain::nonnegative;
  if (s == "at_least_one") return InputDomain::at_least_one;
  if (s == "whole_positive") return InputDomain::whole_positive;
  throw std::invalid_argument(where + ": domain must be positive, nonnegative, at_least_one or whole_positive");
}

}  // namespace

std::vector<ModelVariable> parse_model_inputs(const std::string& text, const std::string& origin) {
  const toml::table root = gs::parse_toml_text_as<std::invalid_argument>(text, origin);
  if (root["schema"].value_or(std::string()) != "gpu-stack.sim-model-inputs.v1")
    throw std::invalid_argument(origin + ": schema must be \"gpu-stack.sim-model-inputs.v1\"");
  const toml::array* inputs = root["input"].as_array();
  if (!inputs) throw std::invalid_argument(origin + ": no [[input]] tables");
  std::vector<ModelVariable> out;
  std::set<std::string> roles, names;
  for (const auto& node : *inputs) {
    const toml::table* t = node.as_table();
    std::string where = fmt::format("{}: [[input]] #{}", origin, out.size() + 1);
    if (!t) throw std::invalid_argument(where + ": expected a table");
    auto text_of = [&](const char* key) {
      auto v = (*t)[key].value<std::string>();
      if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: missing text '{}'", where, key));
      return *v;
    };
    ModelVariable v;
    v.role = text_of("role");
    v.name = text_of("variable");
    v.unit = text_of("unit");
    std::string scope = text_of("scope");
    if (scope != "workload" && scope != "facility") throw std::invalid_argument(where + ": scope must be workload or facility");
    v.scope = scope == "workload" ? InputScope::workload : InputScope::facility;
    auto required = (*t)["required"].value<bool>();
    if (!required) throw std::invalid_argument(where + ": required must be true or false");
    v.required = *required;
    v.domain = parse_domain(text_of("domain"), where);
    v.meaning = text_of("meaning");
    if (!roles.insert(v.role).second) throw std::invalid_argument(fmt::format("{}: role '{}' bound twice", where, v.role));
    if (!names.insert(v.name).second) throw std::invalid_argument(fmt::format("{}: variable '{}' bound twice", where, v.name));
    out.push_back(v);
  }
  for (const auto& role : engine_roles())
    if (!roles.count(role)) throw std::invalid_argument(fmt::format("{}: the engine's role '{}' is not bound to a variable", origin, role));
  for (const auto& v : out)
    if (std::find(engine_roles().begin(), engine_roles().end(), v.role) == engine_roles().end())
      throw std::invalid_argument(fmt::format("{}: role '{}' is not one the engine reads", origin, v.role));
  return out;
}

std::map<std::string, double> model_values_by_role(const std::vector<std::pair<std::string, double>>& by_role) {
  std::map<std::string, double> out;
  for (const auto& [role, value] : by_role) out[model_variable_for(role).name] = value;
  return out;
}

namespace {
std::string& bindings_path() {
  static std::string path;
  return path;
}
}  // namespace

void use_model_inputs(const std::string& path) { bindings_path() = path; }

std::string model_inputs_path() {
  if (bindings_path().empty())
    throw std::logic_error("the simulator's model bindings file was not set (sim::use_model_inputs; the front end sets it)");
  return bindings_path();
}

std::string model_inputs_text() {
  try {
    return read_text_file(model_inputs_path(), "the simulator's model bindings");
  } catch (const TextFileError& e) {
    throw std::invalid_argument(e.what());
  }
}

std::vector<std::string> bound_variable_names(const std::string& text, const std::string& origin, const std::string& table,
                                              std::initializer_list<const char*> keys, const std::string& purpose) {
  const toml::table root = gs::parse_toml_text_as<std::invalid_argument>(text, origin);
  const toml::table* t = root[table].as_table();
  if (!t) throw std::invalid_argument(fmt::format("{}: no [{}] table ({})", origin, table, purpose));
  for (const auto& entry : *t) {
    const std::string_view key = entry.first.str();  // a named copy: clang 14 cannot capture a structured binding
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; }))
      throw std::invalid_argument(fmt::format("{}: [{}] has an unknown key '{}'", origin, table, key));
  }
  std::vector<std::string> names;
  for (const char* k : keys) {
    auto v = (*t)[k].value<std::string>();
    if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: [{}] needs the variable name '{}'", origin, table, k));
    names.push_back(*v);
  }
  return names;
}

const std::vector<ModelVariable>& sim_model_variables() {
  static const std::vector<ModelVariable> vars = [] {
    return parse_model_inputs(model_inputs_text(), model_inputs_path());
  }();
  return vars;
}

const ModelVariable* find_model_variable(const std::string& name) {
  for (const auto& var : sim_model_variables())
    if (name == var.name) return &var;
  return nullptr;
}

const ModelVariable& model_variable_for(const std::string& role) {
  for (const auto& var : sim_model_variables())
    if (role == var.role) return var;
  throw std::logic_error("no model variable is bound to the simulator role " + role);
}

namespace {

// Shared checks for one scope: unknown names, missing required ones, finiteness and domains. Values are
// looked up by role through the bindings.
struct Reader {
  const std::map<std::string, double>& v;
  InputScope scope;
  std::vector<std::string> problems;

  Reader(const std::map<std::string, double>& values, InputScope s) : v(values), scope(s) {
    for (const auto& [name, value] : v) {
      const ModelVariable* var = find_model_variable(name);
      if (!var) problems.push_back(fmt::format("'{}' is not a simulator input", name));
      else if (var->scope == scope && !std::isfinite(value)) problems.push_back(fmt::format("'{}' is not finite", name));
    }
    for (const auto& var : sim_model_variables()) {
      if (var.scope != scope) continue;
      if (var.required && !v.count(var.name)) problems.push_back(fmt::format("missing {} [{}]: {}", var.name, var.unit, var.meaning));
      if (v.count(var.name)) check_domain(var, v.at(var.name));
    }
  }
  void check_domain(const ModelVariable& var, double x) {
    switch (var.domain) {
      case InputDomain::positive: require(x > 0, var, "> 0"); break;
      case InputDomain::nonnegative: require(x >= 0, var, ">= 0"); break;
      case InputDomain::at_least_one: require(x >= 1, var, ">= 1"); break;
      case InputDomain::whole_positive:
        require(x > 0 && x == std::floor(x) && x <= 9.007199254740992e15, var, "a whole number of tokens");
        break;
    }
  }
  void require(bool ok, const ModelVariable& var, const char* rule) {
    if (!ok) problems.push_back(fmt::format("{} must be {}", var.name, rule));
  }
  bool has(const char* role) const { return v.count(model_variable_for(role).name) > 0; }
  double get(const char* role) const { return has(role) ? v.at(model_variable_for(role).name) : 0.0; }
  std::optional<double> opt(const char* role) const { return has(role) ? std::optional<double>(get(role)) : std::nullopt; }
  void finish(const char* what) const {
    if (!problems.empty()) throw std::invalid_argument(fmt::format("{} inputs: {}", what, fmt::join(problems, "; ")));
  }
};

}  // namespace

WorkloadInputs workload_from_values(const std::map<std::string, double>& values) {
  Reader r(values, InputScope::workload);
  if (r.get("t_exposed_comm") >= r.get("t_step") && r.has("t_exposed_comm"))
    r.problems.push_back(fmt::format("{} must be shorter than {}", model_variable_for("t_exposed_comm").name, model_variable_for("t_step").name));
  r.finish("workload");
  WorkloadInputs w;
  w.t_step_s = r.get("t_step");
  w.t_exposed_comm_s = r.get("t_exposed_comm");
  w.tokens_per_step = static_cast<uint64_t>(r.get("tokens_per_step"));
  w.flops_per_step = r.opt("flops_per_step");
  w.state_bytes = r.get("state_bytes");
  w.restart_overhead_s = r.get("restart_overhead");
  w.detection_s = r.get("detection");
  w.reconfig_s = r.opt("reconfig");
  w.memory_ckpt_s = r.opt("memory_ckpt");
  w.memory_restore_s = r.opt("memory_restore");
  w.state_transfer_bw = r.opt("state_transfer_bw");
  w.gpu_busy_w = r.get("gpu_busy_w");
  w.gpu_comm_w = r.opt("gpu_comm_w");
  return w;
}

FacilityInputs facility_from_values(const std::map<std::string, double>& values) {
  Reader r(values, InputScope::facility);
  r.finish("facility");
  return {r.get("gpu_idle_w"), r.get("node_host_w"), r.get("pue"), r.opt("price_energy"), r.opt("price_gpu")};
}

SimInputs inputs_from_values(const std::map<std::string, double>& resolved) {
  return {workload_from_values(resolved), facility_from_values(resolved)};
}

}  // namespace gs::sim
