// Builds the evaluation plan of a row's predictions under its scenario (runtime/uq/plan.h) and evaluates
// it with the reference interpreter, optionally with some inputs replaced by caller-supplied values (the
// calibration's parameters). No row compiles machine code.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/jit/jit.h"
#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/validate/mapping.h"

namespace gs::strategy {
struct StrategySpace;
}

namespace gs::validate {

struct PreparedRow {
  RowScenario scenario;
  std::string error;                  // why the cone could not be built (missing inputs, evaluation failure)
  std::vector<double> base;           // the cone's inputs at the row's scenario (base units)
  CompiledCone cone;
  std::vector<uint32_t> outputs;      // output variables, in the order of the output array
  std::vector<size_t> observation_out;  // per observation: index into the outputs
  std::vector<size_t> vary_inputs;    // per varied variable: index into the inputs
  std::vector<size_t> extra_out;      // per extra output requested in prepare(): index into the outputs
  bool ok() const { return error.empty() && cone.one != nullptr; }
};

class Engine {
 public:
  Engine(const Registry& reg, const PresetLibrary& lib);
  ~Engine();
  // `vary` are variables that become free inputs (their preset value is the base). Never throws for a
  // row-level problem; the problem is returned in PreparedRow::error.
  // `extra` are further model variables to compute (e.g. the memory a layout needs).
  PreparedRow prepare(const RowScenario& scenario, const std::vector<uint32_t>& vary = {}, const std::vector<std::string>& extra = {});
  // Output values (base units) with the varied inputs set to `vary_values` (or their base values).
  std::vector<double> evaluate(const PreparedRow& row, const std::vector<double>* vary_values = nullptr) const;
  const Registry& registry() const { return reg_; }
  // The strategy search space in the file at `path` (runtime/strategy/space.h), read and checked once per
  // engine: validate searches a few dozen rows' unstated settings in the same space. Thread-safe.
  const strategy::StrategySpace& strategy_space(const std::string& path);

 private:
  const Registry& reg_;
  const PresetLibrary& lib_;
  std::mutex spaces_mutex_;
  std::map<std::string, std::shared_ptr<const strategy::StrategySpace>> spaces_;
};

}  // namespace gs::validate
