#include "runtime/distribution.h"

#include <cmath>
#include <sstream>

namespace gs {

// Acklam's rational approximation refined by one Halley step (relative error below 1e-15).
double inverse_normal_cdf(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}


namespace {

// One formula per kind, shared by quantile() and quantiles(). Branch-free where a loop over many draws can
// be vectorized: the triangular inverse CDF takes one square root of the argument its side selects (the
// argument of the other side is computed and dropped), which is the same value as the two-branch form.
inline double uniform_q(double u, double a, double b) { return a + (b - a) * u; }
inline double triangular_q(double u, double a, double b, double c) {
  const double split = (c - a) / (b - a);
  const bool low = u < split;
  const double root = std::sqrt(low ? u * (b - a) * (c - a) : (1 - u) * (b - a) * (b - c));
  return low ? a + root : b - root;
}

// The loops over many draws, compiled for AVX-512 and AVX2 as well as the baseline (chosen at load time,
// GCC/Clang target_clones): sqrt, +, -, x are correctly rounded on every one, and this file is compiled
// without contraction into FMA (CMakeLists.txt), so every clone returns the scalar formula's bits.
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define GS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GS_VECTOR_CLONES
#endif
GS_VECTOR_CLONES void uniform_loop(double* u, size_t n, double a, double b) {
  for (size_t i = 0; i < n; ++i) u[i] = uniform_q(u[i], a, b);
}
GS_VECTOR_CLONES void triangular_loop(double* u, size_t n, double a, double b, double c) {
  for (size_t i = 0; i < n; ++i) u[i] = triangular_q(u[i], a, b, c);
}

}  // namespace

double Distribution::quantile(double u) const {
  switch (kind) {
    case Kind::Uniform: return uniform_q(u, a, b);
    case Kind::Normal: return a + b * inverse_normal_cdf(u);
    case Kind::Lognormal: return a * std::exp(b * inverse_normal_cdf(u));
    case Kind::Triangular: return triangular_q(u, a, b, c);
  }
  return NAN;
}

void Distribution::quantiles(double* u, size_t n) const {
  switch (kind) {
    case Kind::Uniform: return uniform_loop(u, n, a, b);
    case Kind::Triangular: return triangular_loop(u, n, a, b, c);
    case Kind::Normal:
    case Kind::Lognormal:
      for (size_t i = 0; i < n; ++i) u[i] = quantile(u[i]);
      return;
  }
}

double Distribution::sample(Rng& rng) const { return quantile(rng.uniform_open()); }

double Distribution::mean() const {
  switch (kind) {
    case Kind::Uniform: return (a + b) / 2;
    case Kind::Normal: return a;
    case Kind::Lognormal: return a * std::exp(b * b / 2);
    case Kind::Triangular: return (a + b + c) / 3;
  }
  return NAN;
}

std::string Distribution::describe() const {
  std::ostringstream os;
  os.precision(6);
  switch (kind) {
    case Kind::Uniform: os << "uniform(" << a << ", " << b << ")"; break;
    case Kind::Normal: os << "normal(mean=" << a << ", sd=" << b << ")"; break;
    case Kind::Lognormal: os << "lognormal(median=" << a << ", sigma=" << b << ")"; break;
    case Kind::Triangular: os << "triangular(" << a << ", " << c << ", " << b << ")"; break;
  }
  return os.str();
}

std::string Distribution::validate() const {
  switch (kind) {
    case Kind::Uniform: return a < b ? "" : "a uniform interval needs low < high";
    case Kind::Normal: return b > 0 ? "" : "a normal distribution needs a positive standard deviation";
    case Kind::Lognormal: return a > 0 && b > 0 ? "" : "a lognormal distribution needs a positive median and sigma";
    case Kind::Triangular: return a <= c && c <= b && a < b ? "" : "a triangular distribution needs low <= mode <= high, low < high";
  }
  return "unknown distribution";
}

bool distribution_kind_by_name(const std::string& name, Distribution::Kind& out) {
  if (name == "uniform" || name == "interval") return out = Distribution::Kind::Uniform, true;
  if (name == "normal") return out = Distribution::Kind::Normal, true;
  if (name == "lognormal") return out = Distribution::Kind::Lognormal, true;
  if (name == "triangular") return out = Distribution::Kind::Triangular, true;
  return false;
}

}  // namespace gs
