// The serving workload of the simulator (runtime/sim/serving.*): determinism for a seed, queueing limits
// that hold whatever the model (Little's law, the M/D/1 waiting time at batch 1), KV capacity as a hard
// limit, and step times taken from the compiled model's serving cone.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/sim/serving.h"
#include "runtime/sim/serving_model.h"

namespace {

using gs::sim::LengthDistribution;
using gs::sim::ServingEngine;
using gs::sim::ServingWorkload;

// A synthetic engine: 1 ms prefill per 100 prompt tokens, a decode step of 10 ms + 0.1 ms per sequence.
ServingEngine synthetic(uint32_t max_batch, double kv_tokens = 1e9) {
  ServingEngine e;
  e.max_batch = max_batch;
  e.kv_capacity_tokens = kv_tokens;
  e.decode_step_s = [](uint32_t b) { return 0.010 + 0.0001 * b; };
  e.prefill_s = [](uint32_t n) { return 0.001 * n / 100.0; };
  return e;
}

ServingWorkload poisson(double rate, uint32_t prompt, uint32_t output, double horizon = 4000, double warmup = 200) {
  ServingWorkload w;
  w.rate_per_s = rate;
  w.prompt = {LengthDistribution::Kind::fixed, prompt, prompt, {}};
  w.output = {LengthDistribution::Kind::fixed, output, output, {}};
  w.horizon_s = horizon;
  w.warmup_s = warmup;
  return w;
}

}  // namespace

TEST_CASE("serving: the same seed gives the same run, another seed another") {
  auto w = poisson(5, 500, 50, 300, 30);
  w.output = {LengthDistribution::Kind::uniform, 10, 100, {}};
  const auto a = gs::sim::simulate_serving(w, synthetic(16), 7), b = gs::sim::simulate_serving(w, synthetic(16), 7);
  const auto c = gs::sim::simulate_serving(w, synthetic(16), 8);
  REQUIRE(a.requests.size() == b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i) {
    CHECK(a.requests[i].finish_s == b.requests[i].finish_s);
    CHECK(a.requests[i].output == b.requests[i].output);
  }
  CHECK(a.summary.mean_latency_s == b.summary.mean_latency_s);
  CHECK(c.summary.mean_latency_s != a.summary.mean_latency_s);
  // ~5 requests/s for 270 s measured: the count is Poisson, within 4 standard deviations of 1,350.
  CHECK(std::fabs(double(a.summary.measured) - 1350) < 4 * std::sqrt(1350.0));
}

TEST_CASE("serving: Little's law L = lambda W holds on the simulated queue within 3 %") {
  const auto r = gs::sim::simulate_serving(poisson(20, 500, 50), synthetic(32), 3);
  const auto& s = r.summary;
  CHECK(s.busy_fraction > 0.3);  // a loaded replica, not an idle one
  CHECK(s.mean_in_system == doctest::Approx(s.arrival_rate_per_s * s.mean_latency_s).epsilon(0.03));
}

TEST_CASE("serving: at batch 1 with fixed lengths the queue is M/D/1 and waits as Pollaczek-Khinchine says") {
  // Service time S = prefill (5 ms) + 9 decode steps of 10.1 ms = 95.9 ms; at lambda = 6/s, rho = 0.5754.
  // M/D/1 mean wait in queue: rho S / (2 (1 - rho)) = 64.99 ms, so mean TTFT = wait + 5 ms prefill.
  const double S = 0.005 + 9 * 0.0101, lambda = 6, rho = lambda * S;
  const double wq = rho * S / (2 * (1 - rho));
  const auto r = gs::sim::simulate_serving(poisson(lambda, 500, 10, 20000, 500), synthetic(1), 11);
  CHECK(r.summary.mean_ttft_s == doctest::Approx(wq + 0.005).epsilon(0.05));
  CHECK(r.summary.busy_fraction == doctest::Approx(rho).epsilon(0.02));
  CHECK(r.summary.mean_latency_s == doctest::Approx(wq + S).epsilon(0.05));
  // Every request decodes alone: TPOT is exactly one batch-1 step.
  CHECK(r.summary.p99_tpot_s == doctest::Approx(0.0101).epsilon(1e-12));
}

TEST_CASE("serving: KV capacity bounds the batch; a request larger than the cache is an error") {
  // 550 tokens per request and 2,000 tokens of cache: at most 3 sequences at once, however many slots.
  const auto r = gs::sim::simulate_serving(poisson(50, 500, 50, 60, 5), synthetic(64, 2000), 5);
  CHECK(r.summary.mean_batch <= 3.0 + 1e-12);
  CHECK(r.summary.mean_batch > 2.0);
  CHECK_THROWS_AS(gs::sim::simulate_serving(poisson(1, 5000, 50, 10, 1), synthetic(4, 2000), 1), std::invalid_argument);
  auto bad = poisson(1, 500, 50, 10, 20);  // warm-up beyond the horizon
  CHECK_THROWS_AS(gs::sim::simulate_serving(bad, synthetic(4), 1), std::invalid_argument);
}

TEST_CASE("serving: step times from the compiled model equal the resolver's at the preset's batch") {
  static gs::Registry reg = gs::Registry::load(std::string(GSTACK_BINARY_DIR) + "/model.gsimg");
  const std::string presets = std::string(GSTACK_SOURCE_DIR) + "/presets";
  gs::Preset p = gs::PresetLibrary(reg, presets).load("serving/llama3_8b_1xh100");
  gs::ScenarioPoint s{p.assignments, p.variants, {}};
  const auto t = gs::sim::serving_tables_from_model(reg, s, gs::sim::default_serving_binding_path(presets), 128, 2048);
  gs::Resolver resolver(reg, s.assignments, s.variants);
  const double step64 = *resolver.resolve(*reg.find_var("serve.decode.t_step")).number;
  const double prefill1024 = *resolver.resolve(*reg.find_var("serve.request.prefill_time")).number;
  CHECK(t.decode_step_s.at(63) == doctest::Approx(step64).epsilon(1e-9));
  CHECK(t.prefill_s.at(1023) == doctest::Approx(prefill1024).epsilon(1e-9));
  CHECK(t.decode_step_s.at(127) > t.decode_step_s.at(0));  // more sequences, more KV to read
  // 56.95 GB of cache at 128 KiB per token (docs/model/serving.md): about 434,000 tokens.
  CHECK(t.kv_capacity_tokens == doctest::Approx(56.95e9 / 131072.0).epsilon(0.01));
  // A short run on the model's engine keeps every TPOT at or above the batch-1 step.
  auto w = poisson(20, 1024, 64, 60, 10);
  const auto r = gs::sim::simulate_serving(w, t.engine(64), 2);
  CHECK(r.summary.measured > 0);
  CHECK(r.summary.mean_tpot_s >= t.decode_step_s.at(0));
}
