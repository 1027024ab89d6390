#include "runtime/validate/runs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <regex>
#include <sstream>

namespace gs::validate {
namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

double suffix_scale(char c, bool binary) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'K': return binary ? 1024.0 : 1e3;
    case 'M': return binary ? 1048576.0 : 1e6;
    case 'B':
    case 'G': return binary ? 1073741824.0 : 1e9;
    case 'T': return binary ? 1099511627776.0 : 1e12;
    default: return 0;
  }
}

std::optional<double> scaled(const std::string& raw, bool binary, char* suffix_out) {
  std::string s = trim(raw);
  if (!s.empty() && s[0] == '~') s = trim(s.substr(1));
  if (s.empty()) return std::nullopt;
  char suffix = 0;
  if (std::isalpha(static_cast<unsigned char>(s.back()))) {
    suffix = s.back();
    if (suffix_scale(suffix, binary) == 0) return std::nullopt;
    s = trim(s.substr(0, s.size() - 1));
  }
  auto v = parse_plain_number(s);
  if (!v) return std::nullopt;
  if (suffix_out) *suffix_out = suffix;
  return suffix ? *v * suffix_scale(suffix, binary) : *v;
}

}  // namespace

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

const std::string& RunRow::get(const std::string& column) const {
  static const std::string empty;
  auto it = cells.find(column);
  return it == cells.end() ? empty : it->second;
}

std::vector<RunRow> runs_from_table(const CsvTable& table) {
  std::vector<std::string> header;
  for (const auto& h : table.header) header.push_back(trim(h));
  if (std::find(header.begin(), header.end(), "id") == header.end())
    throw CsvError("the header has no 'id' column (expected the columns of calibration-runs.csv)");
  std::vector<RunRow> rows;
  for (const auto& rec : table.records) {
    RunRow row;
    row.line = rec.line;
    if (rec.fields.size() != header.size())
      row.field_error = "the row has " + std::to_string(rec.fields.size()) + " fields but the header has " + std::to_string(header.size());
    for (size_t i = 0; i < header.size() && i < rec.fields.size(); ++i) row.cells[header[i]] = trim(rec.fields[i]);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<RunRow> read_runs(const std::vector<std::string>& paths) {
  std::vector<RunRow> all;
  for (const auto& p : paths) {
    std::vector<RunRow> rows = read_runs(p);
    all.insert(all.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
  }
  return all;
}

std::vector<RunRow> read_runs(const std::string& path) {
  try {
    std::vector<RunRow> rows = runs_from_table(read_csv(path));
    for (auto& r : rows) r.file = path;
    return rows;
  } catch (const CsvError& e) {
    std::string what = e.what();
    if (what.rfind(path, 0) == 0) throw;
    throw CsvError(path + ": " + what);
  }
}

std::optional<double> parse_plain_number(const std::string& raw) {
  std::string s = trim(raw);
  // Thousands separators only between groups of three digits ("1,024", "30,840,000").
  static const std::regex grouped(R"(^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$)");
  if (std::regex_match(s, grouped)) s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  static const std::regex number(R"(^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$)");
  if (!std::regex_match(s, number)) return std::nullopt;
  double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> parse_scaled_count(const std::string& text, char* suffix) { return scaled(text, false, suffix); }

CellNumber read_cell_number(const std::string& raw) {
  CellNumber c;
  const std::string t = lower(trim(raw));
  if (t.empty()) return c;
  if (auto v = parse_plain_number(t)) {
    c.value = v;
    return c;
  }
  static const std::vector<std::string> kEmpty = {"n/a", "na", "-", "?", "unknown", "tbd", "not stated", "none given"};
  if (std::find(kEmpty.begin(), kEmpty.end(), t) != kEmpty.end()) {
    c.reading = "'" + trim(raw) + "' read as empty";
    return c;
  }
  char suffix = 0;
  if (auto v = parse_scaled_count(t, &suffix)) {
    c.value = v;
    std::ostringstream os;
    os << std::setprecision(12) << *v;
    if (suffix || t[0] == '~') c.reading = "'" + trim(raw) + "' read as " + os.str();
    return c;
  }
  static const std::regex range(R"(^~?\s*[0-9][0-9.,]*\s*[kmbgt]?\s*(-|–|to)\s*~?[0-9][0-9.,]*\s*[kmbgt]?$)");
  static const std::regex ramp(R"((->|→|ramp|warm))");
  if (std::regex_search(t, range)) {
    c.reading = "range '" + trim(raw) + "' read as empty (no one value describes the run)";
    return c;
  }
  if (std::regex_search(t, ramp)) {
    c.reading = "ramp '" + trim(raw) + "' read as empty (no one value describes the run)";
    return c;
  }
  c.ok = false;
  return c;
}
std::optional<double> parse_binary_count(const std::string& text) { return scaled(text, true, nullptr); }

std::optional<Duration> parse_duration(const std::string& text) {
  static const std::regex re(R"(^\s*~?\s*([0-9][0-9,]*\.?[0-9]*)\s*(days?|d|hours?|hrs?|h|weeks?|months?|minutes?|min|s|seconds?)\b)",
                             std::regex::icase);
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  auto v = parse_plain_number(m[1].str());
  if (!v) return std::nullopt;
  std::string unit = lower(m[2].str());
  double scale = 0;
  if (unit[0] == 'd') scale = 86400;
  else if (unit[0] == 'h') scale = 3600;
  else if (unit[0] == 'w') scale = 604800;
  else if (unit.rfind("mo", 0) == 0) scale = 2629800;
  else if (unit.rfind("min", 0) == 0) scale = 60;
  else scale = 1;
  Duration d{*v * scale, std::nullopt};
  static const std::regex tokens(R"(for\s+~?([0-9][0-9,]*\.?[0-9]*\s*[KMBGT]?)\s+tokens)", std::regex::icase);
  if (std::smatch t; std::regex_search(text, t, tokens)) d.tokens = parse_scaled_count(t[1].str());
  return d;
}

std::optional<int> parse_year(const std::string& text) {
  static const std::regex re(R"((^|[^0-9])((19[9][0-9])|(20[0-9][0-9]))([^0-9]|$))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return std::stoi(m[2].str());
}

}  // namespace gs::validate
