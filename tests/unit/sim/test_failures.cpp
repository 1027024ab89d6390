// The failure process and the optimal checkpoint interval.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "runtime/sim/failures.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;
using namespace gs;  // the seeded generator and deterministic math live in the runtime core

TEST_CASE("Young's interval by hand") {
  // sqrt(2 x 120 s x 21600 s) = sqrt(5,184,000) = 2276.8399 s
  CHECK(young_interval_s(120, 21600) == doctest::Approx(2276.839915).epsilon(1e-9));
}

TEST_CASE("Daly's higher-order interval by hand") {
  // delta = 120 s, M = 21600 s: r = 120 / 43200 = 1/360;
  // sqrt(2 delta M) (1 + sqrt(r)/3 + r/9) - delta = 2276.83992 x 1.01787627 - 120 = 2197.54264 s
  double r = 120.0 / 43200.0;
  double expected = std::sqrt(2.0 * 120 * 21600) * (1 + std::sqrt(r) / 3 + r / 9) - 120;
  CHECK(daly_interval_s(120, 21600) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(daly_interval_s(120, 21600) == doctest::Approx(2197.54264).epsilon(1e-8));
  CHECK(daly_interval_s(500, 200) == 200);  // checkpoints slower than failures: the interval is M
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
