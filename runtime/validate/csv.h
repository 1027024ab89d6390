// A small RFC 4180 reader: comma-separated fields, optional double quotes around a field, "" for a quote
// inside quotes, commas and line breaks inside quoted fields, CRLF or LF line ends, an optional UTF-8
// byte-order mark. The first record is the header.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gs::validate {

struct CsvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CsvRecord {
  std::vector<std::string> fields;
  size_t line = 0;  // 1-based line where the record starts
};

struct CsvTable {
  std::vector<std::string> header;
  std::vector<CsvRecord> records;  // data records, without the header; blank lines are skipped
};

// Input limits, far above any table of published runs (about a hundred rows of a few dozen columns), so
// that a huge or hostile file is refused with a message instead of exhausting memory.
struct CsvLimits {
  size_t max_bytes = size_t(64) << 20;
  size_t max_records = 100'000;
  size_t max_fields = 1'000;  // per record
};

// Throws CsvError (with the line) on an unterminated quoted field, a quote inside an unquoted field, or
// input past `limits`. A record whose fields are all empty (",,,") is skipped like a blank line.
std::vector<CsvRecord> parse_csv_records(std::string_view text, const CsvLimits& limits = {});
// The first record becomes the header; an empty text is an error.
CsvTable parse_csv(std::string_view text, const CsvLimits& limits = {});
// The file's bytes, refused past limits.max_bytes before they are read.
std::string read_csv_text(const std::string& path, const CsvLimits& limits = {});
CsvTable read_csv(const std::string& path, const CsvLimits& limits = {});

}  // namespace gs::validate
