#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "image/suggest.h"

using namespace gs;

namespace {

size_t full_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

TEST_CASE("suggest: the banded edit distance agrees with the full one inside its budget") {
  CHECK(edit_distance_within("kitten", "sitting", 3) == std::optional<size_t>(3));
  CHECK_FALSE(edit_distance_within("kitten", "sitting", 2).has_value());
  CHECK(edit_distance_within("", "ab", 2) == std::optional<size_t>(2));
  CHECK(edit_distance_within("abc", "abc", 0) == std::optional<size_t>(0));
  std::mt19937 rng(7);
  for (int n = 0; n < 2000; ++n) {
    auto word = [&] {
      std::string s(rng() % 9, 'a');
      for (char& c : s) c = char('a' + rng() % 3);
      return s;
    };
    const std::string a = word(), b = word();
    const size_t budget = rng() % 6, d = full_distance(a, b);
    const auto banded = edit_distance_within(a, b, budget);
    if (d <= budget) CHECK(banded == std::optional<size_t>(d));
    else CHECK_FALSE(banded.has_value());
  }
}

TEST_CASE("suggest: near misses are suggested; very long names get no suggestion") {
  const std::vector<std::string> names{"econ.cost.per_token", "econ.run.total_cost", "econ.run.tokens"};
  CHECK(closest_names("econ.cost.per_tokn", names) == std::vector<std::string>{"econ.cost.per_token"});
  CHECK(did_you_mean("econ.run.tokns", names) == "did you mean 'econ.run.tokens'?");
  // A 100,000-character name is not compared at all (the search is bounded whatever the input).
  CHECK(closest_names(std::string(100000, 'e'), names).empty());
  // Same last part, far in edits: still a near miss.
  CHECK(closest_names("training.total_cost", names) == std::vector<std::string>{"econ.run.total_cost"});
}
