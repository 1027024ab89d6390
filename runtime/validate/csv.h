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

// Throws CsvError (with the line) on an unterminated quoted field or a quote inside an unquoted field.
std::vector<CsvRecord> parse_csv_records(std::string_view text);
// The first record becomes the header; an empty text is an error.
CsvTable parse_csv(std::string_view text);
CsvTable read_csv(const std::string& path);

}  // namespace gs::validate
