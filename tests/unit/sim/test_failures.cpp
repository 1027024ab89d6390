// The failure process and the optimal checkpoint interval.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "runtime/sim/failures.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using namespace gs;  // the seeded generator and deterministic math live in the runtime core

TEST_CASE("Young's interval, as the model computes it, by hand") {
  // sqrt(2 x 120 s x 21600 s) = sqrt(5,184,000) = 2276.8399 s
  CHECK(testing::intervals()->young(120, 21600) == doctest::Approx(2276.839915).epsilon(1e-9));
}

TEST_CASE("Daly's higher-order interval, as the model computes it, by hand") {
  // delta = 120 s, M = 21600 s: r = 120 / 43200 = 1/360;
  // sqrt(2 delta M) (1 + sqrt(r)/3 + r/9) - delta = 2276.83992 x 1.01787627 - 120 = 2197.54264 s
  const auto rules = testing::intervals();
  double r = 120.0 / 43200.0;
  double expected = std::sqrt(2.0 * 120 * 21600) * (1 + std::sqrt(r) / 3 + r / 9) - 120;
  CHECK(rules->daly(120, 21600) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(rules->daly(120, 21600) == doctest::Approx(2197.54264).epsilon(1e-8));
  CHECK(rules->daly(500, 200) == 200);  // checkpoints slower than failures: the interval is M
}

TEST_CASE("the checkpoint-interval binding names four variables and nothing else") {
  IntervalBinding b = parse_interval_binding(R"([checkpoint_interval]
checkpoint_time = "a"
mtbf = "b"
young = "c"
daly = "d")", "test.toml");
  CHECK(b.checkpoint_time == "a");
  CHECK(b.daly == "d");
  CHECK_THROWS_WITH_AS(parse_interval_binding("schema = \"x\"", "t.toml"), doctest::Contains("no [checkpoint_interval] table"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_interval_binding("[checkpoint_interval]\nmtbf = \"b\"", "t.toml"), doctest::Contains("'checkpoint_time'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_interval_binding("[checkpoint_interval]\nwat = 1", "t.toml"), doctest::Contains("unknown key 'wat'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_interval_binding("[checkpoint_interval\n", "t.toml"),
                       "t.toml:1:21: malformed TOML: Error while parsing table header: expected ']', saw '\\n'; "
                       "hint: check the TOML syntax at that position",
                       std::invalid_argument);
}

TEST_CASE("the Llama 3 preset's rates add up to 419 interruptions in 54 days") {
  Scenario sc = testing::load_preset("llama3-405b-16k.toml");
  double rate = job_failure_rate_per_s(sc.failures, 16384, 2048);
  CHECK(rate * 54 * 86400 == doctest::Approx(419).epsilon(1e-12));
  CHECK(sc.maintenance.rate_per_job_s * 54 * 86400 == doctest::Approx(47).epsilon(1e-12));
}

TEST_CASE("the superposed process picks classes in proportion to their rates") {
  FailureClass a, b, empty;
  a.rate_per_unit_s = 1e-6;
  a.unit = FailureUnit::gpu;
  b.rate_per_unit_s = 1e-5;
  b.unit = FailureUnit::job;
  empty.rate_per_unit_s = 0;
  empty.unit = FailureUnit::node;
  FailureProcess p({a, empty, b}, 1000, 100, 2);
  CHECK(p.total_rate_per_s() == doctest::Approx(1e-3 + 2e-5).epsilon(1e-15));
  Rng rng(5);
  std::map<uint16_t, int> count;
  double gaps = 0;
  for (int i = 0; i < 100000; ++i) {
    auto pick = p.pick(rng);
    ++count[pick.cls];
    CHECK(pick.unit < (pick.cls == 0 ? 1000u : 2u));
    gaps += double(p.next_gap_ns(rng)) / 1e9;
  }
  CHECK(count[1] == 0);
  CHECK(double(count[2]) / 100000 == doctest::Approx(2e-5 / 1.02e-3).epsilon(0.1));
  CHECK(gaps / 100000 == doctest::Approx(1.0 / 1.02e-3).epsilon(0.02));
}

namespace {

// A class of `count` failures observed over `window_s` on `units` GPUs, with a Weibull hazard of `shape`.
FailureClass weibull_class(double count, double window_s, double units, double shape) {
  FailureClass c;
  c.unit = FailureUnit::gpu;
  c.rate_per_unit_s = count / (window_s * units);
  c.observed_window_s = window_s;
  c.weibull_shape = shape;
  return c;
}

// Arrivals in [0, window) of the process, split into the two halves of the window.
std::pair<int, int> halves(const FailureProcess& p, double window_s, uint64_t seed) {
  Rng rng(seed);
  int first = 0, second = 0;
  auto end = static_cast<int64_t>(window_s * 1e9);
  for (int64_t t = p.next_failure_ns(0, rng); t < end; t = p.next_failure_ns(t, rng)) {
    (t < end / 2 ? first : second) += 1;
    CHECK(p.pick_at(t, rng).unit < 1000);
  }
  return {first, second};
}

}  // namespace

TEST_CASE("with every hazard shape 1 the time-varying draws are the Poisson draws, bit for bit") {
  FailureProcess p({weibull_class(500, 86400, 1000, 1.0), weibull_class(30, 86400, 1000, 1.0)}, 1000, 125, 1);
  CHECK_FALSE(p.time_varying());
  Rng a(3), b(3);
  int64_t t = 0;
  for (int i = 0; i < 1000; ++i) {
    int64_t next = p.next_failure_ns(t, a);
    CHECK(next == t + p.next_gap_ns(b));
    auto x = p.pick_at(next, a), y = p.pick(b);
    CHECK(x.cls == y.cls);
    CHECK(x.unit == y.unit);
    t = next;
  }
}

TEST_CASE("a Weibull hazard keeps the observed count and moves failures early (shape < 1) or late (shape > 1)") {
  // Expected count over the window W is a = 20,000 whatever the shape; the share in the first half is
  // H(W/2) / H(W) = 0.5^k: 0.7071 for k = 0.5 (infant mortality), 0.5 for k = 1, 0.25 for k = 2 (wear-out).
  // Tolerances: the count is Poisson (sd 0.7%, checked to 3%); the share binomial (sd 0.0035, checked to 0.015).
  const double window = 54 * 86400.0;
  for (double shape : {0.5, 1.0, 2.0}) {
    CAPTURE(shape);
    FailureProcess p({weibull_class(20000, window, 1000, shape)}, 1000, 125, 1);
    CHECK(p.time_varying() == (shape != 1.0));
    auto [first, second] = halves(p, window, 17);
    double total = first + second;
    CHECK(total == doctest::Approx(20000).epsilon(0.03));
    CHECK(first / total == doctest::Approx(std::pow(0.5, shape)).epsilon(0.015 / std::pow(0.5, shape)));
  }
}

TEST_CASE("a class with a falling hazard takes a larger share of early failures than of late ones") {
  // Two classes with equal counts over the window; one with k = 0.5. At time t the hazard rates are
  // a k / W (t/W)^(k-1) against a / W, so at t = W/100 the shaped class has 0.5 x 10 = 5 times the rate.
  const double window = 54 * 86400.0;
  FailureProcess p({weibull_class(1000, window, 1000, 0.5), weibull_class(1000, window, 1000, 1.0)}, 1000, 125, 1);
  Rng rng(8);
  int shaped = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) shaped += p.pick_at(static_cast<int64_t>(window / 100 * 1e9), rng).cls == 0;
  CHECK(double(shaped) / draws == doctest::Approx(5.0 / 6.0).epsilon(0.02));
}
