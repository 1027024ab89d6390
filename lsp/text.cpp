#include "lsp/text.h"

#include <algorithm>

namespace gs::lsp {

namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// UTF-16 units of the code point starting with byte `c` (4-byte sequences are surrogate pairs).
unsigned utf16_units(unsigned char c) { return c >= 0xF0 ? 2 : 1; }

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Span trim_dots(const std::string& line, Span s) {
  while (s.begin < s.end && line[s.begin] == '.') ++s.begin;
  while (s.end > s.begin && line[s.end - 1] == '.') --s.end;
  return s;
}

// Each line with its terminator, so that joining the pieces gives the text back.
std::vector<std::string_view> line_pieces(const std::string& text) {
  std::vector<std::string_view> out;
  size_t a = 0;
  while (a < text.size()) {
    const size_t nl = text.find('\n', a);
    const size_t b = nl == std::string::npos ? text.size() : nl + 1;
    out.emplace_back(text.data() + a, b - a);
    a = b;
  }
  return out;
}

}  // namespace

std::optional<std::string> path_from_uri(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.size() < scheme.size() || uri.substr(0, scheme.size()) != scheme) return std::nullopt;
  uri.remove_prefix(scheme.size());
  if (uri.substr(0, 9) == "localhost") uri.remove_prefix(9);
  if (uri.empty() || uri.front() != '/') return std::nullopt;
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex_value(uri[i + 1]) >= 0 && hex_value(uri[i + 2]) >= 0) {
      out += char(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  if (out.find('\0') != std::string::npos) return std::nullopt;
  return out;
}

std::string uri_from_path(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += char(c);
    } else {
      out += '%', out += hex[c >> 4], out += hex[c & 15];
    }
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view piece : line_pieces(text)) {
    if (!piece.empty() && piece.back() == '\n') piece.remove_suffix(1);
    if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
    out.emplace_back(piece);
  }
  return out;
}

unsigned utf16_of_column(const std::string& line, unsigned column) {
  unsigned units = 0, col = 1;
  for (size_t i = 0; i < line.size() && col < column; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (continuation(c)) continue;
    units += utf16_units(c);
    ++col;
  }
  return units;
}

size_t byte_of_utf16(const std::string& line, unsigned character) {
  unsigned units = 0;
  size_t i = 0;
  while (i < line.size() && units < character) {
    units += utf16_units(static_cast<unsigned char>(line[i]));
    ++i;
    while (i < line.size() && continuation(static_cast<unsigned char>(line[i]))) ++i;
  }
  return i;
}

unsigned utf16_length(const std::string& line) { return utf16_of_column(line, unsigned(-1)); }

size_t byte_of_column(const std::string& line, unsigned column) {
  size_t i = 0;
  for (unsigned col = 1; i < line.size() && col < column; ++col) {
    ++i;
    while (i < line.size() && continuation(static_cast<unsigned char>(line[i]))) ++i;
  }
  return i;
}

size_t byte_of_position(const std::string& text, unsigned line, unsigned character) {
  size_t start = 0;
  for (unsigned l = 0; l < line; ++l) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) return text.size();
    start = nl + 1;
  }
  size_t end = text.find('\n', start);
  if (end == std::string::npos) end = text.size();
  if (end > start && text[end - 1] == '\r') --end;
  return start + byte_of_utf16(text.substr(start, end - start), character);
}

Span name_at(const std::string& line, size_t at) {
  at = std::min(at, line.size());
  Span s{at, at};
  while (s.begin > 0 && name_char(line[s.begin - 1])) --s.begin;
  while (s.end < line.size() && name_char(line[s.end])) ++s.end;
  return trim_dots(line, s);
}

Span name_before(const std::string& line, size_t at) {
  at = std::min(at, line.size());
  Span s{at, at};
  while (s.begin > 0 && name_char(line[s.begin - 1])) --s.begin;
  while (s.begin < s.end && line[s.begin] == '.') ++s.begin;  // keep a trailing dot: "econ." is typed
  return s;
}

std::optional<LineEdit> line_edit(const std::string& before, const std::string& after) {
  if (before == after) return std::nullopt;
  const auto a = line_pieces(before), b = line_pieces(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  LineEdit e;
  e.first = unsigned(prefix);
  const size_t last = a.size() - suffix;  // one past the last replaced line of `before`
  if (last == a.size() && !before.empty() && before.back() != '\n') {
    // The replaced lines run to the end of a text without a final newline: end on the last line.
    std::string tail(a.back());
    if (!tail.empty() && tail.back() == '\r') tail.pop_back();
    e.end_line = unsigned(a.size() - 1), e.end_character = utf16_length(tail);
  } else {
    e.end_line = unsigned(last), e.end_character = 0;
  }
  for (size_t i = prefix; i < b.size() - suffix; ++i) e.text += b[i];
  return e;
}

}  // namespace gs::lsp
