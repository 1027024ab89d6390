#include "runtime/sim/interval_model.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "runtime/jit/jit.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/sim/inputs.h"
#include "runtime/uq/cone_builder.h"

namespace gs::sim {

IntervalBinding parse_interval_binding(const std::string& text, const std::string& origin) {
  const auto n = bound_variable_names(text, origin, "checkpoint_interval", {"checkpoint_time", "mtbf", "young", "daly"},
                                      "the model variables of the checkpoint-interval rules");
  return {n[0], n[1], n[2], n[3]};
}

const IntervalBinding& interval_binding() {
  static const IntervalBinding binding = parse_interval_binding(model_inputs_text(), model_inputs_path());
  return binding;
}

struct CheckpointIntervals::Impl {
  Jit jit;
  CompiledCone cone;
  std::vector<double> base;
  size_t delta_column = 0, mtbf_column = 0;
  void evaluate(double delta_s, double mtbf_s, double out[2]) const {
    std::vector<double> in(base);
    in[delta_column] = delta_s;
    in[mtbf_column] = mtbf_s;
    cone.one(in.data(), out);
  }
};

CheckpointIntervals::CheckpointIntervals() : impl_(std::make_unique<Impl>()) {}
CheckpointIntervals::~CheckpointIntervals() = default;

std::shared_ptr<const CheckpointIntervals> CheckpointIntervals::from_model(const Registry& reg) {
  const IntervalBinding& b = interval_binding();
  const std::string what = "the simulator's [checkpoint_interval] binding";
  const uint32_t delta = lookup_variable(reg, b.checkpoint_time, what), mtbf = lookup_variable(reg, b.mtbf, what);
  const std::vector<uint32_t> targets = {lookup_variable(reg, b.young, what), lookup_variable(reg, b.daly, what)};
  // The two inputs carry placeholder values while the relations are selected; every evaluation sets them.
  const std::map<uint32_t, double> at = {{delta, 1.0}, {mtbf, 3600.0}};
  Resolver resolver(reg, at, {});
  ConeBuild build = build_cone(reg, resolver, at, targets, {delta, mtbf}, true);
  if (!build.missing.empty()) throw PresetError(what + ": " + missing_inputs_message(reg, build.missing));
  std::shared_ptr<CheckpointIntervals> out(new CheckpointIntervals());
  Impl& impl = *out->impl_;
  impl.cone = impl.jit.compile(build.program);
  impl.base = build.base;
  auto column = [&](uint32_t var) {
    for (size_t i = 0; i < build.program.inputs.size(); ++i)
      if (build.program.inputs[i] == var) return i;
    throw PresetError(fmt::format("{}: the intervals do not read '{}'", what, reg.var_names()[var]));
  };
  impl.delta_column = column(delta);
  impl.mtbf_column = column(mtbf);
  if (impl.cone.n_outputs != 2) throw std::logic_error("the checkpoint-interval cone has two outputs");
  return out;
}

double CheckpointIntervals::young(double delta_s, double mtbf_s) const {
  double out[2];
  impl_->evaluate(delta_s, mtbf_s, out);
  return out[0];
}

double CheckpointIntervals::daly(double delta_s, double mtbf_s) const {
  if (delta_s >= 2.0 * mtbf_s) return mtbf_s;  // outside the relation's validity (Daly 2006, eq. 37: tau = M)
  double out[2];
  impl_->evaluate(delta_s, mtbf_s, out);
  return out[1];
}

void attach_model_intervals(Scenario& sc, const Registry& reg) {
  if (sc.needs_model_intervals() && !sc.intervals) sc.intervals = CheckpointIntervals::from_model(reg);
}

}  // namespace gs::sim
