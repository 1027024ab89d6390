#include "runtime/detmath.h"

#include <cmath>
#include <limits>

namespace gs {
namespace {
// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (the fdlibm constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kSqrt2 = 1.41421356237309514547e+00;
}  // namespace

double det_log(double x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int k = 0;
  double m = std::frexp(x, &k) * 2.0;  // exact: x = m * 2^(k-1), m in [1, 2)
  k -= 1;
  if (m > kSqrt2) {
    m *= 0.5;
    k += 1;
  }
  // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716: the odd series converges fast.
  double f = m - 1.0;
  double s = f / (2.0 + f);
  double z = s * s;
  double series = 0;
  for (int n = 23; n >= 3; n -= 2) series = (series + 1.0 / n) * z;
  double log_m = 2.0 * s + 2.0 * s * series;
  return double(k) * kLn2Hi + (double(k) * kLn2Lo + log_m);
}

double det_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.1332191019412) return 0.0;
  double k = std::floor(x * kInvLn2 + 0.5);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= 0.35
  double sum = 1.0;
  for (int n = 17; n >= 1; --n) sum = 1.0 + sum * r / n;
  return std::ldexp(sum, static_cast<int>(k));
}

void det_sincos_small(double x, double& s, double& c) {
  double z = x * x;
  // Taylor series to x^19 and x^18: the first omitted term is below 1e-18 for |x| <= pi/4.
  double ps = 0, pc = 0;
  for (int n = 19; n >= 3; n -= 2) ps = (ps + 1.0) * (-z) / (double(n) * double(n - 1));
  for (int n = 18; n >= 2; n -= 2) pc = (pc + 1.0) * (-z) / (double(n) * double(n - 1));
  s = x + x * ps;
  c = 1.0 + pc;
}

// Wichura's algorithm AS 241 (PPND16; Applied Statistics 37(3), 477-484, 1988): a rational function of
// (p - 1/2)^2 near the median, and beyond |p - 1/2| = 0.425 rational functions of sqrt(-log(tail
// probability)), split at 5 (tail probabilities below about 1.4e-11). The published relative error is
// about 1e-16; here the only function beyond + - x / and sqrt is det_log, so the bits are portable.
double det_normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    const double num = ((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r + 6.7265770927008700853e+4) * r +
                           4.5921953931549871457e+4) * r + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r +
                        1.3314166789178437745e+2) * r + 3.3871328727963666080e+0;
    const double den = ((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r + 3.9307895800092710610e+4) * r +
                           2.1213794301586595867e+4) * r + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r +
                        4.2313330701600911252e+1) * r + 1.0;
    return q * num / den;
  }
  // The smaller tail's probability: p itself below the median (exact), 1 - p above it (exact for p >= 1/2).
  double r = std::sqrt(-det_log(q < 0 ? p : 1.0 - p));
  double z;
  if (r <= 5.0) {
    r -= 1.6;
    const double num = ((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r + 2.41780725177450611770e-1) * r +
                           1.27045825245236838258e+0) * r + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r +
                        4.63033784615654529590e+0) * r + 1.42343711074968357734e+0;
    const double den = ((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r + 1.51986665636164571966e-2) * r +
                           1.48103976427480074590e-1) * r + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r +
                        2.05319162663775882187e+0) * r + 1.0;
    z = num / den;
  } else {
    r -= 5.0;
    const double num = ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.24266094738807843860e-3) * r +
                           2.65321895265761230930e-2) * r + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r +
                        5.46378491116411436990e+0) * r + 6.65790464350110377720e+0;
    const double den = ((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r + 1.84631831751005468180e-5) * r +
                           7.86869131145613259100e-4) * r + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r +
                        5.99832206555887937690e-1) * r + 1.0;
    z = num / den;
  }
  return q < 0 ? -z : z;
}

}  // namespace gs
