#include "runtime/validate/csv.h"

#include <fstream>

namespace gs::validate {

namespace {

std::string limit_text(size_t n) { return std::to_string(n); }

}  // namespace

std::vector<CsvRecord> parse_csv_records(std::string_view text, const CsvLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw CsvError("the table is " + limit_text(text.size()) + " bytes, more than the limit of " + limit_text(limits.max_bytes));
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<CsvRecord> out;
  CsvRecord rec;
  std::string field;
  size_t line = 1, i = 0;
  bool in_record = false;  // something (a field or a separator) has been read on this record
  rec.line = 1;
  bool any_text = false;  // some field of this record is not empty
  auto end_field = [&] {
    if (rec.fields.size() >= limits.max_fields)
      throw CsvError("line " + std::to_string(rec.line) + ": more than " + limit_text(limits.max_fields) + " fields in one record");
    any_text = any_text || !field.empty();
    rec.fields.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    end_field();
    // A record with nothing in it is not a record: a trailing newline, blank lines, or rows of bare
    // separators (",,,", as spreadsheets export unused rows), which would otherwise each cost a row.
    if (any_text) {
      if (out.size() >= limits.max_records)
        throw CsvError("line " + std::to_string(rec.line) + ": more than " + limit_text(limits.max_records) + " records");
      rec.fields.shrink_to_fit();
      out.push_back(std::move(rec));
    }
    rec = CsvRecord{};
    in_record = false;
    any_text = false;
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

CsvTable parse_csv(std::string_view text, const CsvLimits& limits) {
  auto records = parse_csv_records(text, limits);
  if (records.empty()) throw CsvError("the file is empty: expected a header line");
  CsvTable t;
  t.header = std::move(records.front().fields);
  t.records.assign(std::make_move_iterator(records.begin() + 1), std::make_move_iterator(records.end()));
  return t;
}

std::string read_csv_text(const std::string& path, const CsvLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CsvError("cannot read '" + path + "'");
  // Read in chunks and stop one past the limit, so a device or a pipe that never ends is refused too.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
    if (text.size() > limits.max_bytes)
      throw CsvError(path + ": more than " + limit_text(limits.max_bytes) + " bytes; a table of published runs is far smaller");
  }
  return text;
}

CsvTable read_csv(const std::string& path, const CsvLimits& limits) {
  const std::string text = read_csv_text(path, limits);
  try {
    return parse_csv(text, limits);
  } catch (const CsvError& e) {
    throw CsvError(path + ": " + e.what());
  }
}

}  // namespace gs::validate
