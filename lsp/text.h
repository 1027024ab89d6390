// Text and position helpers of the language server. The protocol counts a position's character in
// UTF-16 code units by default, the compiler counts columns in code points (as ANTLR does), and strings
// are UTF-8 bytes here: every conversion between the three lives in this file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs::lsp {

// The local path of a file:// URI (percent-escapes decoded), or nothing for any other scheme or a URI
// that decodes to a NUL byte.
std::optional<std::string> path_from_uri(std::string_view uri);
// The file:// URI of an absolute path, with every byte outside the unreserved set and '/' escaped.
std::string uri_from_path(std::string_view path);

// The document's lines, split at "\n" with a trailing "\r" removed (as compiler::SourceFile does).
std::vector<std::string> split_lines(const std::string& text);

// UTF-16 offset of the 1-based code-point column `column` in `line` (clamped to the line's end).
unsigned utf16_of_column(const std::string& line, unsigned column);
// Byte offset in `line` of the UTF-16 offset `character` (clamped to the line's end).
size_t byte_of_utf16(const std::string& line, unsigned character);
// UTF-16 length of `line`.
unsigned utf16_length(const std::string& line);
// Byte offset in `line` of the 1-based code-point column `column` (clamped to the line's end).
size_t byte_of_column(const std::string& line, unsigned column);
// Byte offset in `text` of the protocol position (line, character), clamped to the text.
size_t byte_of_position(const std::string& text, unsigned line, unsigned character);

// The dotted name ([A-Za-z0-9_.], without leading or trailing dots) around byte `at` of `line`:
// [begin, end) byte offsets, empty when there is none.
struct Span {
  size_t begin = 0, end = 0;
  bool empty() const { return begin == end; }
};
Span name_at(const std::string& line, size_t at);
// The part of a dotted name that ends at byte `at` (what has been typed so far, for completion).
Span name_before(const std::string& line, size_t at);

// The smallest whole-line replacement turning `before` into `after`: the text from the start of line
// `first` to (end_line, end_character) (a UTF-16 position) is replaced by `text`. Nothing when the two
// are equal.
struct LineEdit {
  unsigned first = 0, end_line = 0, end_character = 0;
  std::string text;
};
std::optional<LineEdit> line_edit(const std::string& before, const std::string& after);

}  // namespace gs::lsp
