#include "compiler/builtins.h"

#include <numbers>
#include <utility>

namespace gs::compiler {
namespace {

// The nearest doubles to pi and e: what `3.141592653589793` typed in a model file parses to.
const std::pair<const char*, double> kConstants[] = {
    {"math.e", std::numbers::e},
    {"math.pi", std::numbers::pi},
};

}  // namespace

std::optional<double> math_constant(const std::string& name) {
  for (const auto& [n, v] : kConstants)
    if (name == n) return v;
  return std::nullopt;
}

std::vector<std::string> math_constant_names() {
  std::vector<std::string> names;
  for (const auto& c : kConstants) names.push_back(c.first);
  return names;
}

bool in_math_namespace(const std::string& name) {
  const std::string ns = kMathNamespace;
  return name == ns || name.rfind(ns + ".", 0) == 0;
}

}  // namespace gs::compiler
