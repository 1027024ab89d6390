// The optimal checkpoint intervals the recovery policies use (checkpoint = "young" or "daly"), as the
// compiled model computes them. presets/sim/model-inputs.toml ([checkpoint_interval]) names the model's
// checkpoint cost and MTBF variables and its Young and Daly intervals; one JIT cone of those relations,
// with the two as inputs, is evaluated whenever a policy sets its cadence, at the checkpoint cost and MTBF
// the policy observes. The simulator keeps no copy of either formula.
#pragma once

#include <memory>
#include <string>

#include "runtime/registry.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

// Which model variables the intervals are read from.
struct IntervalBinding {
  std::string checkpoint_time, mtbf;  // inputs: the blocking checkpoint cost and the job's MTBF
  std::string young, daly;            // outputs: Young's (1974) and Daly's (2006) optimal interval
};
// From the [checkpoint_interval] table of a bindings file (exposed for tests); throws std::invalid_argument.
IntervalBinding parse_interval_binding(const std::string& toml_text, const std::string& origin);
// From model_inputs_path(), read once per process.
const IntervalBinding& interval_binding();

class CheckpointIntervals {
 public:
  // Compiles the cone. Throws PresetError when a bound variable is unknown or the intervals need more
  // than the two inputs, std::invalid_argument when the binding is malformed.
  static std::shared_ptr<const CheckpointIntervals> from_model(const Registry& reg);
  ~CheckpointIntervals();
  // Compute time between checkpoints (s) for a blocking checkpoint of delta_s and an MTBF of mtbf_s.
  // Thread-safe. Daly's relation holds while delta < 2 mtbf (its stated validity in the model); beyond
  // it Daly gives the MTBF itself, which is what daly() returns there.
  double young(double delta_s, double mtbf_s) const;
  double daly(double delta_s, double mtbf_s) const;

 private:
  CheckpointIntervals();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Attaches the model's intervals to a scenario that needs them (Scenario::needs_model_intervals), so
// scenarios with fixed cadences pay no compilation.
void attach_model_intervals(Scenario& sc, const Registry& reg);

}  // namespace gs::sim
