#include "runtime/validate/csv.h"

#include <fstream>
#include <sstream>

namespace gs::validate {

std::vector<CsvRecord> parse_csv_records(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<CsvRecord> out;
  CsvRecord rec;
  std::string field;
  size_t line = 1, i = 0;
  bool in_record = false;  // something (a field or a separator) has been read on this record
  rec.line = 1;
  auto end_field = [&] {
    rec.fields.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    end_field();
    // A line with nothing on it is not a record (a trailing newline, or blank lines).
    if (!(rec.fields.size() == 1 && rec.fields[0].empty() && !in_record)) out.push_back(std::move(rec));
    rec = CsvRecord{};
    in_record = false;
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '"' && field.empty() && (i == 0 || text[i - 1] == ',' || text[i - 1] == '\n' || text[i - 1] == '\r')) {
      // Quoted field: runs to the closing quote; "" is a literal quote.
      const size_t start_line = line;
      ++i;
      in_record = true;
      bool closed = false;
      while (i < text.size()) {
        char q = text[i];
        if (q == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        if (q == '\n') ++line;
        field += q;
        ++i;
      }
      if (!closed) throw CsvError("line " + std::to_string(start_line) + ": a quoted field is never closed");
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        throw CsvError("line " + std::to_string(line) + ": text after the closing quote of a field");
      continue;
    }
    if (c == ',') {
      end_field();
      in_record = true;
      ++i;
      continue;
    }
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++i;
      end_record();
      ++line;
      rec.line = line;
      continue;
    }
    if (c == '"') throw CsvError("line " + std::to_string(line) + ": a quote inside an unquoted field");
    field += c;
    in_record = true;
    ++i;
  }
  if (in_record || !field.empty()) end_record();
  return out;
}

CsvTable parse_csv(std::string_view text) {
  auto records = parse_csv_records(text);
  if (records.empty()) throw CsvError("the file is empty: expected a header line");
  CsvTable t;
  t.header = std::move(records.front().fields);
  t.records.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
  return t;
}

CsvTable read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CsvError("cannot read '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    return parse_csv(ss.str());
  } catch (const CsvError& e) {
    throw CsvError(path + ": " + e.what());
  }
}

}  // namespace gs::validate
