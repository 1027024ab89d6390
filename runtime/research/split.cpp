#include "runtime/research/split.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::research {

IdList::IdList(std::string n, std::vector<std::string> list) : name(std::move(n)), ids(std::move(list)) {
  if (ids.empty()) throw std::invalid_argument(name + " split is empty");
  std::set<std::string> seen;
  for (const auto& id : ids) {
    if (id.find_first_not_of(" \t\r\n") == std::string::npos) throw std::invalid_argument(name + " split has a blank id");
    if (!seen.insert(id).second) throw std::invalid_argument(name + " split lists '" + id + "' twice");
  }
}

std::vector<std::string> overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::vector<std::string> both;
  std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(both));
  return both;
}

CalibrationEvaluationSplit::CalibrationEvaluationSplit(std::string split_id, std::vector<std::string> calibration,
                                                       std::vector<std::string> evaluation)
    : id_(std::move(split_id)), calibration_("calibration", std::move(calibration)),
      evaluation_("evaluation", std::move(evaluation)) {
  if (id_.find_first_not_of(" \t\r\n") == std::string::npos) throw std::invalid_argument("split needs an id");
  auto both = overlap(calibration_.ids, evaluation_.ids);
  if (!both.empty())
    throw std::invalid_argument(fmt::format("split {}: ids on both the calibration and the evaluation side: {}", id_,
                                            fmt::join(both, ", ")));
}

void CalibrationEvaluationSplit::validate_against(const std::vector<Observation>& observations,
                                                  bool require_complete_partition) const {
  std::set<std::string> known;
  for (const auto& o : observations)
    if (!known.insert(o.observation_id).second)
      throw std::invalid_argument("observation id '" + o.observation_id + "' appears twice in the collection");
  std::set<std::string> assigned;
  for (const auto* side : {&calibration_.ids, &evaluation_.ids})
    for (const auto& id : *side) {
      if (!known.count(id)) throw std::invalid_argument("split " + id_ + " references unknown observation '" + id + "'");
      assigned.insert(id);
    }
  if (require_complete_partition)
    for (const auto& id : known)
      if (!assigned.count(id)) throw std::invalid_argument("observation '" + id + "' is on neither side of split " + id_);
}

Json CalibrationEvaluationSplit::to_json() const {
  return {{"split_id", id_}, {"calibration", calibration_.ids}, {"evaluation", evaluation_.ids}};
}

}  // namespace gs::research
