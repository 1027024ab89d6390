#include "runtime/workspace.h"

#include <filesystem>

namespace gs {

std::string Workspace::serving_runs_csv() const {
  return (std::filesystem::path(data_dir) / "serving" / "serving-runs.csv").string();
}

std::string Workspace::training_runs_csv() const {
  if (!runs_csv.empty()) return runs_csv;
  return (std::filesystem::path(data_dir) / "runs" / "calibration-runs.csv").string();
}

std::string Workspace::sim_model_inputs() const {
  return (std::filesystem::path(presets_dir) / "sim" / "model-inputs.toml").string();
}

}  // namespace gs
