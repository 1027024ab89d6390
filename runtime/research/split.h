// Calibration and evaluation splits (anchor-research.md §1.5). A model may be fitted on calibration
// observations only; evaluation observations are held out. A split that lets one id sit on both sides is
// refused at construction, so a leak cannot be represented at all.
#pragma once

#include <string>
#include <vector>

#include "runtime/research/observation.h"

namespace gs::research {

// An ordered, non-empty list of distinct, non-blank observation ids.
struct IdList {
  std::string name;
  std::vector<std::string> ids;
  IdList(std::string name, std::vector<std::string> ids);  // throws std::invalid_argument
};

class CalibrationEvaluationSplit {
 public:
  // Throws std::invalid_argument naming the (sorted) ids found on both sides.
  CalibrationEvaluationSplit(std::string split_id, std::vector<std::string> calibration,
                             std::vector<std::string> evaluation);
  const std::string& id() const { return id_; }
  const std::vector<std::string>& calibration() const { return calibration_.ids; }
  const std::vector<std::string>& evaluation() const { return evaluation_.ids; }
  // Every referenced id must exist among `observations` (whose ids must be unique); with
  // `require_complete_partition`, every observation must also be assigned to a side.
  void validate_against(const std::vector<Observation>& observations, bool require_complete_partition = false) const;
  Json to_json() const;

 private:
  std::string id_;
  IdList calibration_, evaluation_;
};

// The ids present in both lists, sorted; empty when the lists are disjoint.
std::vector<std::string> overlap(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace gs::research
