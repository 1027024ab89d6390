#include "runtime/sim/inputs.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::sim {

const std::vector<ModelVariable>& sim_model_variables() {
  using S = InputScope;
  static const std::vector<ModelVariable> vars = {
      {"training.t_step", "s", S::workload, true, "one optimizer step at full membership"},
      {"training.t_exposed_comm", "s", S::workload, false, "part of the step spent waiting on collectives"},
      {"arch.tokens_per_step", "token", S::workload, true, "tokens in one global batch"},
      {"training.flops_per_step", "FLOP", S::workload, false, "model FLOPs of one step (reporting)"},
      {"training.checkpoint.state_bytes", "byte", S::workload, true, "one copy of weights and optimizer state"},
      {"training.restart_overhead", "s", S::workload, true, "relaunch and initialise after an interruption"},
      {"training.failure_detection_time", "s", S::workload, true, "from a failure to the observed interruption"},
      {"training.elastic.reconfig_time", "s", S::workload, false, "membership change without a restart"},
      {"training.checkpoint.memory_write_time", "s", S::workload, false, "blocking part of a peer-memory checkpoint"},
      {"training.checkpoint.memory_restore_time", "s", S::workload, false, "restore from peer memory"},
      {"cluster.state_transfer.bw", "byte/s", S::workload, false, "bandwidth to bring a rejoining replica up to date"},
      {"gpu.power.total", "W", S::workload, true, "GPU board power while computing"},
      {"gpu.power.comm", "W", S::workload, false, "GPU board power while waiting on collectives"},
      {"gpu.power.idle", "W", S::facility, true, "GPU board power when idle"},
      {"cluster.node.host_power", "W", S::facility, true, "non-GPU power of one node"},
      {"thermal.dc.pue", "1", S::facility, true, "facility power usage effectiveness"},
      {"econ.power.price_kwh", "USD/J", S::facility, false, "electricity tariff"},
      {"econ.gpu.price_hour", "USD/s", S::facility, false, "price of one GPU-hour (rental or amortised capital)"},
  };
  return vars;
}

const ModelVariable* find_model_variable(const std::string& name) {
  for (const auto& var : sim_model_variables())
    if (name == var.name) return &var;
  return nullptr;
}

namespace {

// Shared checks for one scope: unknown names, missing required ones, finiteness and domains.
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
    for (const auto& var : sim_model_variables())
      if (var.scope == scope && var.required && !v.count(var.name))
        problems.push_back(fmt::format("missing {} [{}]: {}", var.name, var.unit, var.meaning));
  }
  bool has(const char* name) const { return v.count(name) > 0; }
  double get(const char* name) const { return has(name) ? v.at(name) : 0.0; }
  std::optional<double> opt(const char* name) const { return has(name) ? std::optional<double>(v.at(name)) : std::nullopt; }
  void require(bool ok, const char* name, const char* rule) {
    if (has(name) && !ok) problems.push_back(fmt::format("{} must be {}", name, rule));
  }
  void finish(const char* what) const {
    if (!problems.empty()) throw std::invalid_argument(fmt::format("{} inputs: {}", what, fmt::join(problems, "; ")));
  }
};

}  // namespace

WorkloadInputs workload_from_values(const std::map<std::string, double>& values) {
  Reader r(values, InputScope::workload);
  for (const char* n : {"training.t_step", "arch.tokens_per_step", "training.checkpoint.state_bytes", "gpu.power.total",
                        "training.elastic.reconfig_time", "training.checkpoint.memory_write_time",
                        "training.checkpoint.memory_restore_time", "cluster.state_transfer.bw", "training.flops_per_step"})
    r.require(r.get(n) > 0, n, "> 0");
  for (const char* n : {"training.t_exposed_comm", "training.restart_overhead", "training.failure_detection_time", "gpu.power.comm"})
    r.require(r.get(n) >= 0, n, ">= 0");
  double tokens = r.get("arch.tokens_per_step");
  r.require(tokens == std::floor(tokens) && tokens <= 9.007199254740992e15, "arch.tokens_per_step", "a whole number of tokens");
  r.require(r.get("training.t_exposed_comm") < r.get("training.t_step"), "training.t_exposed_comm", "shorter than training.t_step");
  r.finish("workload");
  WorkloadInputs w;
  w.t_step_s = r.get("training.t_step");
  w.t_exposed_comm_s = r.get("training.t_exposed_comm");
  w.tokens_per_step = static_cast<uint64_t>(tokens);
  w.flops_per_step = r.opt("training.flops_per_step");
  w.state_bytes = r.get("training.checkpoint.state_bytes");
  w.restart_overhead_s = r.get("training.restart_overhead");
  w.detection_s = r.get("training.failure_detection_time");
  w.reconfig_s = r.opt("training.elastic.reconfig_time");
  w.memory_ckpt_s = r.opt("training.checkpoint.memory_write_time");
  w.memory_restore_s = r.opt("training.checkpoint.memory_restore_time");
  w.state_transfer_bw = r.opt("cluster.state_transfer.bw");
  w.gpu_busy_w = r.get("gpu.power.total");
  w.gpu_comm_w = r.opt("gpu.power.comm");
  return w;
}

FacilityInputs facility_from_values(const std::map<std::string, double>& values) {
  Reader r(values, InputScope::facility);
  r.require(r.get("thermal.dc.pue") >= 1, "thermal.dc.pue", ">= 1");
  for (const char* n : {"gpu.power.idle", "cluster.node.host_power", "econ.power.price_kwh", "econ.gpu.price_hour"})
    r.require(r.get(n) >= 0, n, ">= 0");
  r.finish("facility");
  return {r.get("gpu.power.idle"), r.get("cluster.node.host_power"), r.get("thermal.dc.pue"), r.opt("econ.power.price_kwh"),
          r.opt("econ.gpu.price_hour")};
}

SimInputs inputs_from_values(const std::map<std::string, double>& resolved) {
  return {workload_from_values(resolved), facility_from_values(resolved)};
}

}  // namespace gs::sim
