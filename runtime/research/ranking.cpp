#include "runtime/research/ranking.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gs::research {
namespace {

void check_pair(const Scores& predicted, const Scores& observed) {
  if (predicted.empty()) throw std::invalid_argument("score maps must not be empty");
  if (predicted.size() != observed.size()) throw std::invalid_argument("score maps must name the same configurations");
  for (auto p = predicted.begin(), o = observed.begin(); p != predicted.end(); ++p, ++o) {
    if (p->first != o->first) throw std::invalid_argument("score maps must name the same configurations");
    if (p->first.find_first_not_of(" \t") == std::string::npos) throw std::invalid_argument("configuration ids must not be blank");
    if (!std::isfinite(p->second) || !std::isfinite(o->second)) throw std::invalid_argument("scores must be finite");
  }
}

std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double mean = (double(i + 1) + double(j + 1)) / 2.0;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = mean;
    i = j + 1;
  }
  return rank;
}

}  // namespace

Json KendallTauB::to_json() const {
  return {{"pair_count", pair_count}, {"concordant_pair_count", concordant}, {"discordant_pair_count", discordant},
          {"joint_tie_count", joint_ties}, {"predicted_only_tie_count", predicted_only_ties},
          {"observed_only_tie_count", observed_only_ties}, {"comparable_pair_count", concordant + discordant},
          {"tau_b", tau_b ? Json(*tau_b) : Json(nullptr)}};
}

KendallTauB kendall_tau_b(const Scores& predicted, const Scores& observed) {
  check_pair(predicted, observed);
  std::vector<double> p, o;
  for (const auto& [id, v] : predicted) p.push_back(v);
  for (const auto& [id, v] : observed) o.push_back(v);
  KendallTauB k;
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = i + 1; j < p.size(); ++j) {
      double dp = p[i] - p[j], dob = o[i] - o[j];
      ++k.pair_count;
      if (dp == 0 && dob == 0) ++k.joint_ties;
      else if (dp == 0) ++k.predicted_only_ties;
      else if (dob == 0) ++k.observed_only_ties;
      else if ((dp > 0) == (dob > 0)) ++k.concordant;
      else ++k.discordant;
    }
  double cd = double(k.concordant + k.discordant);
  double denom = std::sqrt((cd + double(k.predicted_only_ties)) * (cd + double(k.observed_only_ties)));
  if (denom > 0) k.tau_b = (double(k.concordant) - double(k.discordant)) / denom;
  return k;
}

std::optional<double> spearman(const Scores& predicted, const Scores& observed) {
  check_pair(predicted, observed);
  if (predicted.size() < 2) return std::nullopt;
  std::vector<double> p, o;
  for (const auto& [id, v] : predicted) p.push_back(v);
  for (const auto& [id, v] : observed) o.push_back(v);
  auto rp = average_ranks(p), ro = average_ranks(o);
  double n = double(rp.size()), mp = 0, mo = 0;
  for (size_t i = 0; i < rp.size(); ++i) { mp += rp[i]; mo += ro[i]; }
  mp /= n;
  mo /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rp.size(); ++i) {
    sxy += (rp[i] - mp) * (ro[i] - mo);
    sxx += (rp[i] - mp) * (rp[i] - mp);
    syy += (ro[i] - mo) * (ro[i] - mo);
  }
  if (sxx == 0 || syy == 0) return std::nullopt;
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

Json DecisionRegret::to_json() const {
  return {{"objective", objective == Objective::minimize ? "minimize" : "maximize"}, {"selected_configuration_id", selected},
          {"optimal_configuration_id", optimal}, {"regret", regret},
          {"relative_regret", relative_regret ? Json(*relative_regret) : Json(nullptr)}, {"is_optimal", is_optimal()}};
}

DecisionRegret decision_regret(const Scores& predicted, const Scores& observed, Objective objective) {
  check_pair(predicted, observed);
  double sign = objective == Objective::minimize ? 1.0 : -1.0;
  // Maps iterate in id order, so a strict comparison keeps the smallest id among equals.
  auto best = [&](const Scores& s) {
    auto it = s.begin();
    for (auto j = s.begin(); j != s.end(); ++j)
      if (sign * j->second < sign * it->second) it = j;
    return it->first;
  };
  DecisionRegret d;
  d.objective = objective;
  d.selected = best(predicted);
  d.optimal = best(observed);
  double got = observed.at(d.selected), opt = observed.at(d.optimal);
  d.regret = std::max(0.0, sign * (got - opt));
  if (opt != 0) d.relative_regret = d.regret / std::fabs(opt);
  return d;
}

}  // namespace gs::research
