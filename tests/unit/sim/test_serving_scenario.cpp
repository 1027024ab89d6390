// Serving scenarios and the serving experiments' statistics (runtime/sim/serving_scenario.*,
// serving_cells.*, e006.*): paired trace lengths, one request stream split over replicas, energy and
// cost accounting, goodput under the targets, t quantiles, prediction-interval coverage and the Wilson bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "runtime/presets.h"
#include "runtime/sim/e006.h"
#include "runtime/sim/serving_cells.h"
#include "runtime/sim/serving_scenario.h"

namespace {

using gs::sim::LengthDistribution;

// Hand-made model tables: a 10 ms decode step at any batch up to 16, 1 ms of prefill per 100 prompt
// tokens, 1 kW and 0.001 USD/s per replica.
gs::sim::ServingModelTables tables() {
  gs::sim::ServingModelTables t;
  t.decode_step_s.assign(16, 0.010);
  for (uint32_t n = 1; n <= 1000; ++n) t.prefill_s.push_back(0.001 * n / 100.0);
  t.kv_capacity_tokens = 1e9;
  t.replica_power_w = 1000;
  t.replica_cost_usd_per_s = 0.001;
  return t;
}

gs::sim::ServingScenario scenario(uint32_t replicas) {
  gs::sim::ServingScenario sc;
  sc.name = "test";
  sc.replicas = replicas;
  sc.max_batch = 16;
  sc.workload.rate_per_s = 2;
  sc.workload.prompt = {LengthDistribution::Kind::fixed, 100, 100, {}};
  sc.workload.output = {LengthDistribution::Kind::fixed, 10, 10, {}};
  sc.workload.horizon_s = 1000;
  sc.workload.warmup_s = 100;
  sc.ttft_max_s = 10, sc.tpot_max_s = 1;
  return sc;
}

}  // namespace

TEST_CASE("serving scenario: paired trace rows keep each prompt with its own output") {
  gs::sim::ServingWorkload w = scenario(1).workload;
  w.prompt = {LengthDistribution::Kind::empirical, 1, 1, {100, 200, 300}};
  w.output = {LengthDistribution::Kind::empirical, 1, 1, {1, 2, 3}};
  w.paired_lengths = true;
  const auto requests = gs::sim::draw_requests(w, 9);
  REQUIRE(requests.size() > 1000);
  for (const auto& r : requests) CHECK(r.prompt == 100 * r.output);
  w.output.values.pop_back();
  CHECK_THROWS_AS(gs::sim::draw_requests(w, 9), std::invalid_argument);
}

TEST_CASE("serving scenario: energy and cost are the replicas' power and cost rate over the window") {
  const auto r = gs::sim::run_serving(scenario(2), tables(), 4);
  // 2 replicas x 1 kW x 900 s; 2 x 0.001 USD/s x 900 s.
  CHECK(r.energy_j == doctest::Approx(1.8e6).epsilon(1e-12));
  CHECK(r.cost_usd == doctest::Approx(1.8).epsilon(1e-12));
  const double tokens = r.summary.output_tokens_per_s * 900;
  CHECK(tokens == doctest::Approx(10.0 * r.summary.measured).epsilon(1e-12));
  CHECK(r.cost_per_million_output_tokens_usd == doctest::Approx(1.8 / tokens * 1e6).epsilon(1e-12));
  CHECK(r.energy_per_output_token_j == doctest::Approx(1.8e6 / tokens).epsilon(1e-12));
  // 2 requests/s of 10 tokens: 20 tokens/s within the Poisson noise of ~1,800 requests (3 sigma ~ 7 %).
  CHECK(r.summary.output_tokens_per_s == doctest::Approx(20).epsilon(0.08));
  // Targets far above every latency: all tokens count; a TPOT target below the 10 ms step: none do.
  CHECK(r.slo_attainment == 1.0);
  CHECK(r.goodput_tokens_per_s == doctest::Approx(r.summary.output_tokens_per_s).epsilon(1e-12));
  auto tight = scenario(2);
  tight.tpot_max_s = 0.005;
  const auto t = gs::sim::run_serving(tight, tables(), 4);
  CHECK(t.goodput_tokens_per_s == 0);
  CHECK(std::isinf(t.cost_per_million_goodput_tokens_usd));
  // Percentiles are ordered.
  CHECK(r.summary.p50_ttft_s <= r.summary.p90_ttft_s);
  CHECK(r.summary.p90_ttft_s <= r.summary.p99_ttft_s);
}

TEST_CASE("serving scenario: one seed serves the same requests whatever the replica count") {
  const auto one = gs::sim::run_serving(scenario(1), tables(), 11), three = gs::sim::run_serving(scenario(3), tables(), 11);
  REQUIRE(one.requests.size() == three.requests.size());
  std::vector<double> a, b;
  for (const auto& r : one.requests) a.push_back(r.arrival_s);
  for (const auto& r : three.requests) b.push_back(r.arrival_s);
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  CHECK(std::set<uint32_t>(three.replica_of.begin(), three.replica_of.end()).size() == 3);
  // Three replicas share the load: each is busy less than the single one.
  CHECK(three.summary.busy_fraction < one.summary.busy_fraction);
}

TEST_CASE("serving scenario: a malformed file is a located error") {
  const auto dir = std::filesystem::temp_directory_path() / "gs_serving_scenario_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "bad.toml").string();
  std::ofstream(path) << "schema = \"gpu-stack.serving-scenario.v1\"\nname = \"x\"\npreset = \"p\"\nseed = 1\nmax_batch = 8\n"
                         "horizon_s = 100\nwarmup_s = 10\n[arrivals]\nprocess = \"poisson\"\nrate_per_s = -1\nsource = \"s\"\n";
  try {
    gs::sim::load_serving_scenario(path);
    FAIL("no error");
  } catch (const gs::PresetError& e) {
    CHECK(std::string(e.what()).find(path + ":10:14:") != std::string::npos);
    CHECK(std::string(e.what()).find("rate_per_s") != std::string::npos);
  }
  std::ofstream(path) << "schema = \"gpu-stack.serving-scenario.v1\"\nname = \"x\"\npreset = \"p\"\nseed = 1\nmax_batch = 8\n"
                         "horizon_s = 100\nwarmup_s = 10\n[arrivals]\nprocess = \"poisson\"\nrate_per_s = 1\nsource = \"s\"\n"
                         "[lengths]\ntrace = \"missing.csv\"\n";
  CHECK_THROWS_WITH_AS(gs::sim::load_serving_scenario(path), doctest::Contains("no length trace"), gs::PresetError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("serving experiments: t quantiles, prediction coverage and the Wilson bound") {
  CHECK(gs::sim::student_t_quantile(0.9, 4) == doctest::Approx(2.132).epsilon(1e-9));
  // Tables give t(0.975, 30) = 2.042 and t(0.95, 20) = 1.725; the expansion is within 1e-3 of both.
  CHECK(gs::sim::student_t_quantile(0.95, 30) == doctest::Approx(2.042).epsilon(1e-3));
  CHECK(gs::sim::student_t_quantile(0.9, 20) == doctest::Approx(1.725).epsilon(1e-3));
  CHECK_THROWS_AS(gs::sim::student_t_quantile(0.8, 4), std::invalid_argument);
  // Calibration {1, 2, 3}: mean 2, s 1, half-width 2.920 x sqrt(4/3) = 3.372 at 90 %.
  gs::sim::Coverage c;
  gs::sim::add_prediction_coverage({1, 2, 3}, {5, 5.5, -1.3, -1.4}, 0.9, c);
  CHECK(c.inside == 2);
  CHECK(c.total == 4);
  // 8 of 8: (1 + z^2/16 - z sqrt(z^2/256)) / (1 + z^2/8) = 1 / (1 + 3.8415/8) = 0.6756.
  CHECK(gs::sim::wilson_lower_95(8, 8) == doctest::Approx(1.0 / (1 + 1.959964 * 1.959964 / 8)).epsilon(1e-12));
  CHECK(gs::sim::wilson_lower_95(0, 10) == 0);
  CHECK(gs::sim::wilson_lower_95(300, 300) > 0.987);
}
