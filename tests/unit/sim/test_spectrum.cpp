// Waveforms and band power.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "runtime/sim/spectrum.h"

using namespace gs::sim;

TEST_CASE("bin averages integrate a piecewise-constant signal exactly") {
  // 10 W until 1.5 s, then 30 W: bins of 1 s over [0, 3) average 10, 20 and 30.
  auto bins = bin_average({{0, 10.0}, {1500000000, 30.0}}, 0, 3000000000, 1000000000);
  REQUIRE(bins.size() == 3);
  CHECK(bins[0] == 10.0);
  CHECK(bins[1] == 20.0);
  CHECK(bins[2] == 30.0);
}

TEST_CASE("a sinusoid's power lands in its band with the right RMS") {
  // 1 Hz, amplitude 1000 W, on a 500 W offset, sampled at 100 Hz for 64 whole periods.
  std::vector<double> x;
  for (int i = 0; i < 6400; ++i) x.push_back(500 + 1000 * std::sin(2 * std::numbers::pi * 1.0 * i / 100.0));
  PowerSpectrum s(x, 0.01);
  BandPower in = s.band(0.5, 2.0), out = s.band(5.0, 40.0);
  CHECK(in.rms == doctest::Approx(1000 / std::sqrt(2.0)).epsilon(0.02));  // zero padding spreads a little leakage
  CHECK(out.rms < 0.05 * in.rms);
}
