// Does the model order configurations the way reality does, and what does choosing by the model cost?
// (anchor-research.md §1.9–1.10). Score maps go from configuration id to a finite value; both sides
// must name the same ids.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "runtime/research/canonical_json.h"

namespace gs::research {

using Scores = std::map<std::string, double>;

struct KendallTauB {
  size_t pair_count = 0, concordant = 0, discordant = 0;
  size_t joint_ties = 0, predicted_only_ties = 0, observed_only_ties = 0;
  std::optional<double> tau_b;  // none when the denominator is zero
  Json to_json() const;
};

// tau_b = (C − D) / sqrt((C + D + T_pred_only)(C + D + T_obs_only)), over all unordered pairs.
KendallTauB kendall_tau_b(const Scores& predicted, const Scores& observed);

// Pearson correlation of average ranks (ties share the mean of their 1-based positions); none with fewer
// than two configurations or a constant side. Clamped to [−1, 1].
std::optional<double> spearman(const Scores& predicted, const Scores& observed);

enum class Objective { minimize, maximize };

struct DecisionRegret {
  Objective objective = Objective::minimize;
  std::string selected, optimal;        // argbest of predicted and of observed; ties broken by id
  double regret = 0;                    // observed loss from choosing `selected`, >= 0
  std::optional<double> relative_regret;  // regret / |observed[optimal]|; none when that is 0
  bool is_optimal() const { return regret == 0; }
  Json to_json() const;
};

DecisionRegret decision_regret(const Scores& predicted, const Scores& observed, Objective objective);

}  // namespace gs::research
