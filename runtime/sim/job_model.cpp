#include "runtime/sim/job_model.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "runtime/jit/jit.h"
#include "runtime/resolver.h"
#include "runtime/sim/inputs.h"
#include "runtime/uq/cone_builder.h"

namespace gs::sim {

JobModelBinding parse_job_model_binding(const std::string& text, const std::string& origin) {
  const char* purpose = "the model variables the engine asks about a job's other operating points";
  const auto dp = bound_variable_names(text, origin, "data_parallel", {"degree", "accumulation", "step"}, purpose);
  const auto cap = bound_variable_names(text, origin, "power_cap", {"board", "clock_share"}, purpose);
  return {dp[0], dp[1], dp[2], cap[0], cap[1]};
}

const JobModelBinding& job_model_binding() {
  static const JobModelBinding binding = parse_job_model_binding(model_inputs_text(), model_inputs_path());
  return binding;
}

namespace {

// One compiled cone of `target` under a preset, with `vary` as its inputs (each must be assigned by the
// preset and read by the target).
class PresetCone {
 public:
  PresetCone(const Registry& reg, const Preset& p, uint32_t target, const std::vector<uint32_t>& vary, const std::string& where) {
    for (uint32_t v : vary)
      if (!p.assignments.count(v)) throw PresetError(fmt::format("{}: the preset assigns no '{}'", where, reg.var_names()[v]));
    Resolver resolver(reg, p.assignments, p.variants);
    ConeBuild build = build_cone(reg, resolver, p.assignments, {target}, vary, true);
    if (!build.missing.empty()) throw PresetError(where + ": " + missing_inputs_message(reg, build.missing));
    cone_ = jit_.compile(build.program);
    base_ = build.base;
    for (uint32_t v : vary) {
      size_t c = build.program.inputs.size();
      for (size_t i = 0; i < build.program.inputs.size(); ++i)
        if (build.program.inputs[i] == v) c = i;
      if (c == build.program.inputs.size())
        throw PresetError(fmt::format("{}: the model's '{}' does not depend on '{}'", where, reg.var_names()[target], reg.var_names()[v]));
      columns_.push_back(c);
      at_preset_.push_back(p.assignments.at(v));
    }
    where_ = where;
    name_ = reg.var_names()[target];
  }
  const std::vector<double>& at_preset() const { return at_preset_; }
  double operator()(const std::vector<double>& values) const {
    std::vector<double> in(base_);
    for (size_t i = 0; i < columns_.size(); ++i) in[columns_[i]] = values[i];
    double out = NAN;
    cone_.one(in.data(), &out);
    if (!(out > 0) || !std::isfinite(out))
      throw std::invalid_argument(fmt::format("{}: the model gives no positive finite '{}' there", where_, name_));
    return out;
  }

 private:
  Jit jit_;
  CompiledCone cone_;
  std::vector<double> base_, at_preset_;
  std::vector<size_t> columns_;
  std::string where_, name_;
};

}  // namespace

void attach_job_model(Scenario& sc, const Registry& reg, const PresetLibrary& lib) {
  for (auto& j : sc.jobs) {
    const bool steps = j.reconfigure && j.reconfigure->step_ratio.empty();
    const bool share = j.power_cap && j.power_cap->clock_share_from_model;
    if (j.model_preset.empty() || (!steps && !share)) continue;
    const JobModelBinding& b = job_model_binding();
    const Preset p = lib.load(j.model_preset);
    const std::string where = fmt::format("job '{}' (model_preset {})", j.id, j.model_preset);
    const std::string what = "the simulator's job-model binding";
    if (steps) {
      // The job's n replicas carry the preset's batch per replica; at k replicas the global batch is kept,
      // so each carries n/k times the preset's accumulation steps (a fractional count is the model's mean
      // over ranks).
      PresetCone step(reg, p, lookup_variable(reg, b.step, what), {lookup_variable(reg, b.degree, what), lookup_variable(reg, b.accumulation, what)},
                      where + " [data_parallel]");
      uint32_t nodes = 0;
      for (const auto& pl : j.placement) nodes += pl.nodes;
      const uint32_t n = nodes / j.replica_nodes;
      const double accumulation = step.at_preset()[1];
      const double full = step({double(n), accumulation});
      std::vector<double>& ratio = j.reconfigure->step_ratio;
      for (uint32_t k = 1; k <= n; ++k) ratio.push_back(step({double(k), accumulation * double(n) / double(k)}) / full);
    }
    if (share) {
      // The clock the capped board sustains over the clock at the preset's own board limit, which is the
      // one the job's step time was taken at.
      PresetCone clock(reg, p, lookup_variable(reg, b.clock_share, what), {lookup_variable(reg, b.board, what)}, where + " [power_cap]");
      const double s = clock({j.power_cap->board_w}) / clock({clock.at_preset()[0]});
      if (!(s > 0 && s <= 1))
        throw std::invalid_argument(fmt::format("{}: the model's clock share at {} W is {}, outside (0, 1]", where, j.power_cap->board_w, s));
      j.power_cap->clock_share = s;
    }
  }
}

}  // namespace gs::sim
