#include "image/suggest.h"

#include <algorithm>
#include <string_view>

namespace gs {

namespace {

// Names longer than this get no suggestion: no declared name comes near it, and the search must stay
// linear in the input whatever a user (or a fuzzer) types.
constexpr size_t kMaxSuggestLength = 128;

std::string_view last_part(std::string_view s) {
  const size_t dot = s.find_last_of('.');
  return dot == std::string_view::npos ? s : s.substr(dot + 1);
}

}  // namespace

std::optional<size_t> edit_distance_within(std::string_view a, std::string_view b, size_t budget) {
  // Levenshtein distance restricted to the diagonal band |i - j| <= budget (Ukkonen): cells outside it
  // already cost more than the budget. Work is O(min(|a|, |b|) * budget), and a row whose every cell
  // is past the budget ends the search.
  if (a.size() > b.size()) std::swap(a, b);
  if (b.size() - a.size() > budget) return std::nullopt;
  const size_t inf = budget + 1;
  std::vector<size_t> prev(b.size() + 1, inf), cur(b.size() + 1, inf);
  for (size_t j = 0; j <= std::min(b.size(), budget); ++j) prev[j] = j;
  if (a.empty()) return b.size() <= budget ? std::optional<size_t>(b.size()) : std::nullopt;
  for (size_t i = 1; i <= a.size(); ++i) {
    const size_t lo = i > budget ? i - budget : 1, hi = std::min(b.size(), i + budget);
    // Only the band and the cell on each side of it are touched: the rolling rows are never cleared.
    cur[lo - 1] = lo == 1 ? std::min(i, inf) : inf;
    if (hi < b.size()) cur[hi + 1] = inf;
    size_t row_min = cur[lo - 1];
    for (size_t j = lo; j <= hi; ++j) {
      const size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub, inf});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > budget) return std::nullopt;
    std::swap(prev, cur);
  }
  return prev[b.size()] <= budget ? std::optional<size_t>(prev[b.size()]) : std::nullopt;
}

std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates, size_t limit) {
  if (name.size() > kMaxSuggestLength) return {};
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t budget = std::max<size_t>(2, name.size() / 3);
  const std::string_view tail = last_part(name);
  for (const auto& c : candidates) {
    if (c.size() > kMaxSuggestLength) continue;
    // A candidate whose last part equals the name's last part is a near miss even when far in edits.
    if (auto d = edit_distance_within(name, c, budget)) scored.emplace_back(*d, c);
    else if (last_part(c) == tail) scored.emplace_back(budget + 1, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < limit; ++i) out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  auto best = closest_names(name, candidates, 3);
  if (best.empty()) return "";
  std::string s = "did you mean ";
  for (size_t i = 0; i < best.size(); ++i) s += (i ? (i + 1 == best.size() ? " or " : ", ") : "") + ("'" + best[i] + "'");
  return s + "?";
}

}  // namespace gs
