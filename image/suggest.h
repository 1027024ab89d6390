// Suggestions for misspelt names, shared by the compiler and the runtime.
#pragma once

#include <string>
#include <vector>

namespace gs {

// "did you mean" support: the closest candidates by edit distance, best first.
std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       size_t limit = 3);
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace gs
