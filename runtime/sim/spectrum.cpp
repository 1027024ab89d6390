#include "runtime/sim/spectrum.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

#include "runtime/detmath.h"

namespace gs::sim {

std::vector<double> bin_average(const std::vector<std::pair<int64_t, double>>& changes, int64_t t0, int64_t t1, int64_t dt) {
  size_t n = static_cast<size_t>((t1 - t0) / dt);
  std::vector<double> out(n, 0.0);
  for (size_t i = 0; i < changes.size(); ++i) {
    int64_t a = std::max(changes[i].first, t0);
    int64_t b = std::min(i + 1 < changes.size() ? changes[i + 1].first : t1, t0 + int64_t(n) * dt);
    for (int64_t t = a; t < b;) {
      size_t bin = static_cast<size_t>((t - t0) / dt);
      int64_t end = std::min(b, t0 + int64_t(bin + 1) * dt);
      out[bin] += changes[i].second * double(end - t) / double(dt);
      t = end;
    }
  }
  return out;
}

namespace {

// Complex arithmetic is written out on pairs of doubles: std::complex's multiplication goes through a
// library helper whose compiled form (fused multiply-adds or not) differs between platforms.
struct Cx {
  double re = 0, im = 0;
};

// exp(-2 pi i k / n) for a power of two n >= 8, from an angle reduced exactly to [0, pi/4].
Cx twiddle(size_t k, size_t n) {
  size_t quarter = n / 4, q = k / quarter, r = k % quarter;
  double c, s;
  if (r <= quarter / 2) {
    det_sincos_small(2.0 * std::numbers::pi * double(r) / double(n), s, c);
  } else {
    det_sincos_small(2.0 * std::numbers::pi * double(quarter - r) / double(n), c, s);
  }
  // Rotate by q quarter turns: (c, s) is (cos, sin) of the angle within its quadrant.
  for (size_t i = 0; i < q; ++i) std::tie(c, s) = std::make_pair(-s, c);
  return {c, -s};
}

void fft(std::vector<Cx>& a) {
  size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  // Twiddles depend only on n; a run analyses many signals of one length, so each thread keeps them.
  thread_local std::vector<Cx> w;
  if (w.size() != n / 2) {
    w.resize(n / 2);
    for (size_t k = 0; k < n / 2; ++k) w[k] = twiddle(k, n);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    size_t step = n / len;
    for (size_t i = 0; i < n; i += len)
      for (size_t k = 0; k < len / 2; ++k) {
        const Cx& t = w[k * step];
        Cx u = a[i + k], x = a[i + k + len / 2];
        Cx v{x.re * t.re - x.im * t.im, x.re * t.im + x.im * t.re};
        a[i + k] = {u.re + v.re, u.im + v.im};
        a[i + k + len / 2] = {u.re - v.re, u.im - v.im};
      }
  }
}

}  // namespace

PowerSpectrum::PowerSpectrum(const std::vector<double>& samples, double dt_s) : samples_(samples.size()) {
  if (samples.size() < 2) return;
  double mean = 0;
  for (double x : samples) mean += x;
  mean /= double(samples.size());
  n_ = 8;
  while (n_ < samples.size()) n_ <<= 1;
  std::vector<Cx> a(n_);
  for (size_t i = 0; i < samples.size(); ++i) a[i].re = samples[i] - mean;
  fft(a);
  df_ = 1.0 / (double(n_) * dt_s);
  power_.resize(n_ / 2);
  for (size_t k = 0; k < n_ / 2; ++k) power_[k] = a[k].re * a[k].re + a[k].im * a[k].im;
}

BandPower PowerSpectrum::band(double f_lo, double f_hi) const {
  BandPower out;
  for (size_t k = 1; k < power_.size(); ++k) {
    double f = double(k) * df_;
    if (f >= f_lo && f <= f_hi) out.energy += 2.0 * power_[k];  // one-sided: bins k and n - k
  }
  // Parseval: sum |x|^2 = (1/n) sum |X|^2, averaged over the original samples only.
  if (samples_ > 0 && n_ > 0) out.rms = std::sqrt(out.energy / double(n_) / double(samples_));
  return out;
}

}  // namespace gs::sim
