// Power waveforms and their spectra, for facility-level questions such as E002's: how much of a site's
// power swing falls into a frequency band the grid is sensitive to. Deterministic across machines: the
// FFT's twiddle factors come from detmath, not from the C library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gs::sim {

// Averages a piecewise-constant signal, given as (time, value) change points, over bins of `dt_ns`
// covering [t0, t1). Exact integrals, so energy is preserved bin by bin.
std::vector<double> bin_average(const std::vector<std::pair<int64_t, double>>& changes, int64_t t0, int64_t t1, int64_t dt_ns);

struct BandPower {
  double energy = 0;  // sum of |X_k|^2 over the band's one-sided frequency bins (the mean removed)
  double rms = 0;     // RMS of the part of the signal inside the band (Parseval)
};

// The power spectrum of samples spaced dt seconds apart, mean removed, zero-padded to a power of two
// (the padding is accounted for in the RMS). Computed once; any number of bands can then be read.
class PowerSpectrum {
 public:
  PowerSpectrum(const std::vector<double>& samples, double dt_s);
  BandPower band(double f_lo, double f_hi) const;  // content in [f_lo, f_hi] Hz

 private:
  std::vector<double> power_;  // |X_k|^2 for k < n/2
  double df_ = 0;
  size_t n_ = 0, samples_ = 0;
};

}  // namespace gs::sim
