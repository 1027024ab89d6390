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

}  // namespace gs
