// Residuals, interval coverage, rank correlation and decision regret (anchor-research.md section 1).
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/research/metrics.h"
#include "runtime/research/ranking.h"

using namespace gs::research;

TEST_CASE("residuals are prediction minus observation") {
  Residual r = make_residual("p1", "o1", "step_time", "s", 11.0, 10.0, PredictionInterval{9.0, 12.0, 0.9});
  CHECK(r.residual() == 1.0);
  CHECK(r.absolute_error() == 1.0);
  CHECK(*r.relative_error() == 0.1);
  CHECK(*r.signed_relative_error() == 0.1);
  CHECK(*r.interval_covered);
  Residual zero = make_residual("p2", "o2", "m", "1", -1.0, 0.0);
  CHECK_FALSE(zero.relative_error().has_value());
  CHECK_FALSE(zero.interval_covered.has_value());
  CHECK_THROWS_WITH(make_residual("p3", "o3", "m", "1", 5.0, 1.0, PredictionInterval{0.0, 4.0, 0.9}), doctest::Contains("outside its own interval"));
}

TEST_CASE("interval coverage at one nominal level, and refusal to pool levels") {
  std::vector<Residual> rs = {make_residual("a", "o", "m", "1", 1, 1.5, PredictionInterval{0, 2, 0.9}),
                              make_residual("b", "o", "m", "1", 1, 3.0, PredictionInterval{0, 2, 0.9}),
                              make_residual("c", "o", "m", "1", 1, 2.0, PredictionInterval{0, 2, 0.9}),  // inclusive bound
                              make_residual("d", "o", "m", "1", 1, 9.0)};
  IntervalCoverage c = summarize_interval_coverage(rs);
  CHECK(c.residual_count == 4);
  CHECK(c.interval_count == 3);
  CHECK(c.covered_count == 2);
  CHECK(*c.coverage_rate == doctest::Approx(2.0 / 3.0).epsilon(1e-15));
  CHECK(*c.calibration_error == doctest::Approx(2.0 / 3.0 - 0.9).epsilon(1e-15));
  rs.push_back(make_residual("e", "o", "m", "1", 1, 1, PredictionInterval{0, 2, 0.5}));
  CHECK_THROWS_WITH(summarize_interval_coverage(rs), doctest::Contains("refuses to pool"));
  StratifiedCoverage s = summarize_interval_coverage_stratified(rs);
  REQUIRE(s.panels.size() == 1);
  CHECK(s.panels[0].panel_id == "all");
  REQUIRE(s.panels[0].levels.size() == 2);
  CHECK(s.panels[0].levels[0].confidence_level == 0.5);
  CHECK(s.panels[0].levels[0].coverage_rate == 1.0);
  CHECK(s.panels[0].levels[1].covered_count == 2);
  std::map<std::string, std::string> panels = {{"a", "east"}, {"b", "east"}, {"c", "west"}, {"d", "west"}, {"e", "west"}};
  StratifiedCoverage by = summarize_interval_coverage_stratified(rs, panels);
  REQUIRE(by.panels.size() == 2);
  CHECK(by.panels[0].panel_id == "east");
  CHECK(by.panels[0].levels[0].coverage_rate == 0.5);
  panels.erase("e");
  CHECK_THROWS_WITH(summarize_interval_coverage_stratified(rs, panels), doctest::Contains("exactly"));
}

TEST_CASE("Kendall tau-b counts ties on each side separately") {
  // Pairs over ids a..d: (a,b) (a,c) (a,d) concordant; (b,c) tied in the prediction only; (b,d) discordant;
  // (c,d) tied in the observation only. tau_b = (3 - 1) / sqrt((3 + 1 + 1)(3 + 1 + 1)) = 0.4.
  Scores pred = {{"a", 1}, {"b", 2}, {"c", 2}, {"d", 4}}, obs = {{"a", 1}, {"b", 3}, {"c", 2}, {"d", 2}};
  KendallTauB k = kendall_tau_b(pred, obs);
  CHECK(k.pair_count == 6);
  CHECK(k.concordant == 3);
  CHECK(k.discordant == 1);
  CHECK(k.predicted_only_ties == 1);
  CHECK(k.observed_only_ties == 1);
  CHECK(k.joint_ties == 0);
  CHECK(*k.tau_b == doctest::Approx(0.4).epsilon(1e-15));
  CHECK_FALSE(kendall_tau_b({{"a", 1}, {"b", 1}}, {{"a", 2}, {"b", 2}}).tau_b.has_value());
  CHECK(*kendall_tau_b({{"a", 1}, {"b", 2}, {"c", 3}}, {{"a", 30}, {"b", 20}, {"c", 10}}).tau_b == -1.0);
  CHECK_THROWS(kendall_tau_b({{"a", 1}}, {{"b", 1}}));
}

TEST_CASE("Spearman correlation uses average ranks for ties") {
  // Ranks: pred (1, 2.5, 2.5, 4), obs (1, 2, 3, 4): Pearson of the ranks is 0.9486832980505138.
  auto rho = spearman({{"a", 1}, {"b", 5}, {"c", 5}, {"d", 9}}, {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}});
  CHECK(*rho == doctest::Approx(0.9486832980505138).epsilon(1e-14));
  CHECK_FALSE(spearman({{"a", 1}}, {{"a", 2}}).has_value());
}

TEST_CASE("decision regret: what choosing by the model costs in reality") {
  Scores pred = {{"x", 1.0}, {"y", 2.0}, {"z", 3.0}}, obs = {{"x", 12.0}, {"y", 10.0}, {"z", 11.0}};
  DecisionRegret d = decision_regret(pred, obs, Objective::minimize);
  CHECK(d.selected == "x");
  CHECK(d.optimal == "y");
  CHECK(d.regret == 2.0);
  CHECK(*d.relative_regret == 0.2);
  CHECK_FALSE(d.is_optimal());
  DecisionRegret up = decision_regret(pred, obs, Objective::maximize);
  CHECK(up.selected == "z");
  CHECK(up.optimal == "x");
  CHECK(up.regret == 1.0);
  DecisionRegret ties = decision_regret({{"b", 1.0}, {"a", 1.0}}, {{"a", 0.0}, {"b", 0.0}}, Objective::minimize);
  CHECK(ties.selected == "a");  // ties broken by id
  CHECK(ties.is_optimal());
  CHECK_FALSE(ties.relative_regret.has_value());
}
