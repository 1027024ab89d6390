// Suggestions for misspelt names, shared by the compiler and the runtime.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

// The edit (Levenshtein) distance between a and b when it is at most `budget`, else nullopt; linear in
// the shorter length for a fixed budget.
std::optional<size_t> edit_distance_within(std::string_view a, std::string_view b, size_t budget);

// "did you mean" support: the closest candidates by edit distance, best first. Names longer than
// 128 characters get none, so the search is bounded whatever the input.
std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       size_t limit = 3);
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace gs
