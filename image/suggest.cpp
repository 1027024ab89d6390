#include "image/suggest.h"

#include <algorithm>

namespace gs {

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
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

std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates, size_t limit) {
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t budget = std::max<size_t>(2, name.size() / 3);
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    // A candidate whose last part equals the name's last part is a near miss even when far in edits.
    auto tail = [](const std::string& s) { return s.substr(s.find_last_of('.') == std::string::npos ? 0 : s.find_last_of('.') + 1); };
    if (d <= budget || tail(c) == tail(name)) scored.emplace_back(d, c);
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
