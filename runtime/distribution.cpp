#include "runtime/distribution.h"

#include <cmath>
#include <sstream>

namespace gs {

double Distribution::quantile(double u) const {
  switch (kind) {
    case Kind::Uniform: return a + (b - a) * u;
    case Kind::Normal: return a + b * Rng::inverse_normal_cdf(u);
    case Kind::Lognormal: return a * std::exp(b * Rng::inverse_normal_cdf(u));
    case Kind::Triangular: {
      const double split = (c - a) / (b - a);
      return u < split ? a + std::sqrt(u * (b - a) * (c - a)) : b - std::sqrt((1 - u) * (b - a) * (b - c));
    }
  }
  return NAN;
}

double Distribution::sample(Rng& rng) const { return quantile(rng.uniform()); }

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
