// Rows of published training runs (the columns of data/runs/calibration-runs.csv, see its README) and
// the small parsers their free-text cells need: plain numbers, counts with a K/M/B/T suffix ("4M",
// "~15T"), durations ("84 days for 300B tokens") and the publication year of a source.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/validate/csv.h"

namespace gs::validate {

struct RunRow {
  size_t line = 0;                          // line of the CSV where the row starts
  std::string file;                         // the CSV it came from (empty for rows built in code)
  std::map<std::string, std::string> cells;  // column -> trimmed text; absent columns read as empty
  std::string field_error;                   // set when the row's field count differs from the header's

  const std::string& get(const std::string& column) const;
  bool has(const std::string& column) const { return !get(column).empty(); }
  std::string id() const { return get("id"); }
};

// Every row of the table; throws CsvError when there is no `id` column.
std::vector<RunRow> runs_from_table(const CsvTable& table);
std::vector<RunRow> read_runs(const std::string& path);
// The rows of several CSVs, in order; each row records its file.
std::vector<RunRow> read_runs(const std::vector<std::string>& paths);

// A plain decimal number ("2048", "1.7", "1,024", "3.2e5"); nothing else may follow.
std::optional<double> parse_plain_number(const std::string& text);

// A count that may carry a leading "~" and a K/M/B/G/T suffix, decimal (1e3, 1e6, 1e9, 1e12):
// "4M" = 4e6, "2.0T" = 2e12, "~15T" = 1.5e13. `suffix` reports the letter used, or 0.
std::optional<double> parse_scaled_count(const std::string& text, char* suffix = nullptr);

// The same suffix read in powers of two (K = 2^10, M = 2^20, B/G = 2^30, T = 2^40): "4M" = 4194304.
std::optional<double> parse_binary_count(const std::string& text);

// A numeric cell as the mapping reads it: a plain number; a count with a K/M/B/T suffix ("16M", "2.5K",
// "~1.5B", decimal); "n/a", "na", "-", "?", "unknown", "tbd" or "not stated" as empty; a range ("4-8",
// "4 to 8") or a ramp ("1024->4096", "ramp ...") as empty, since no one value of it describes the run.
// `reading` says how a cell that is not a plain number was read (empty for a plain number); `ok` is false
// when the text is none of these.
struct CellNumber {
  std::optional<double> value;
  std::string reading;
  bool ok = true;
};
CellNumber read_cell_number(const std::string& text);

// "84 days for 300B tokens (...)", "~21 days", "36 h": seconds, and the tokens after "for" when given.
struct Duration {
  double seconds = 0;
  std::optional<double> tokens;
};
std::optional<Duration> parse_duration(const std::string& text);

// The first four-digit year between 1990 and 2099 in the text.
std::optional<int> parse_year(const std::string& text);

std::string lower(std::string s);
bool contains(const std::string& haystack, const std::string& needle);  // case-insensitive

}  // namespace gs::validate
