// next-work: the most decision-relevant gaps, ranked, from live analysis of the image and the default
// scenario. Tiers, in order: verify failures (the model itself is unsound), inputs that block a
// headline target, high-influence inputs whose value no source backs, the largest calibration
// residuals (when a calibration report is available), high-influence inputs without a stated
// uncertainty, and the heaviest root-debt family. Within a tier, larger influence or reach first.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/registry.h"

namespace gs {

struct NextWorkRequest {
  std::string presets_dir;
  std::string preset;                // empty: default_preset_name(presets_dir)
  std::vector<std::string> targets;  // variable names; empty: the preset's [targets], else econ.cost.per_token
  size_t limit = 10;
  std::string runs_path;  // published runs (CSV) to validate; the largest residuals become items
};

struct WorkItem {
  std::string kind;  // verify-failure, blocking-input, unsourced-input, calibration-residual, uncertainty-missing, root-debt
  std::string title;
  std::string evidence;
  std::string command;  // a command that shows the evidence, when there is one
  int tier = 0;
  double weight = 0;    // ordering within the tier, larger first
};

struct NextWorkReport {
  std::string preset;
  std::vector<uint32_t> targets;
  std::vector<std::string> target_names;
  std::vector<WorkItem> items;  // ranked, all of them
  size_t shown = 0;             // the first `shown` items are the answer (the request's limit)
  std::vector<std::string> notes;
};
// The shown items, each with its rank.
void to_json(nlohmann::ordered_json& j, const NextWorkReport& r);

NextWorkReport next_work(const Registry& reg, const NextWorkRequest& req);

}  // namespace gs
