// Power waveforms and their spectra, for facility-level questions such as E002's: how much of a site's
// power swing falls into a frequency band the grid is sensitive to. Deterministic across machines: the
// FFT's twiddle factors come from detmath, not from the C library.
#pragma once

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

// The signal's content in [f_lo, f_hi] Hz for samples spaced dt seconds apart (zero-padded to a power
// of two; the padding is accounted for in the RMS).
BandPower band_power(const std::vector<double>& samples, double dt_s, double f_lo, double f_hi);

}  // namespace gs::sim
