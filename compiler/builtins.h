// Names the language provides without a declaration. The `math` namespace holds the mathematical
// constants (pi, e): they are exact numbers rather than physics, so they need no system, no `use` and no
// source, and no model file may declare a variable under `math.`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gs::compiler {

inline constexpr const char* kMathNamespace = "math";

// The value of a built-in constant such as "math.pi", or nothing when `name` is not one.
std::optional<double> math_constant(const std::string& name);
// Every built-in constant's full name ("math.e", "math.pi"), for suggestions and documentation.
std::vector<std::string> math_constant_names();
// Whether a dotted name lies in the math namespace ("math" itself or "math.<anything>").
bool in_math_namespace(const std::string& name);

}  // namespace gs::compiler
