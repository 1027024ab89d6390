// Position conversions and edits of the language server: UTF-16 characters (the protocol), code-point
// columns (the compiler) and UTF-8 bytes (the text).
#include <doctest/doctest.h>

#include "lsp/text.h"

using namespace gs::lsp;

TEST_CASE("file URIs and paths round-trip, with escapes") {
  CHECK(path_from_uri("file:///work/model/26_economics.gstack") == "/work/model/26_economics.gstack");
  CHECK(path_from_uri("file://localhost/a/b.gstack") == "/a/b.gstack");
  CHECK(path_from_uri("file:///a%20dir/%C3%A9.gstack") == "/a dir/\xC3\xA9.gstack");
  CHECK(path_from_uri("file:///a%2") == "/a%2");  // a cut escape is kept as written
  CHECK_FALSE(path_from_uri("untitled:Untitled-1"));
  CHECK_FALSE(path_from_uri("file://host/a"));     // another machine's file
  CHECK_FALSE(path_from_uri("file:///a%00b"));     // a NUL byte never reaches a path
  CHECK(uri_from_path("/a dir/\xC3\xA9.gstack") == "file:///a%20dir/%C3%A9.gstack");
  CHECK(path_from_uri(uri_from_path("/x/y #1.gstack")) == "/x/y #1.gstack");
}

TEST_CASE("columns, UTF-16 characters and bytes") {
  // "a" (1 byte), "η" U+03B7 (2 bytes, 1 UTF-16 unit), "𝜂" U+1D702 (4 bytes, 2 units), then "b".
  const std::string line = "a\xCE\xB7\xF0\x9D\x9C\x82" "b";
  CHECK(utf16_of_column(line, 1) == 0);
  CHECK(utf16_of_column(line, 3) == 2);   // before 𝜂
  CHECK(utf16_of_column(line, 4) == 4);   // before b: 𝜂 took two units
  CHECK(utf16_of_column(line, 99) == 5);  // clamped
  CHECK(utf16_length(line) == 5);
  CHECK(byte_of_utf16(line, 2) == 3);
  CHECK(byte_of_utf16(line, 4) == 7);
  CHECK(byte_of_utf16(line, 3) == 7);     // inside the surrogate pair: the whole code point
  CHECK(byte_of_utf16(line, 99) == line.size());
  CHECK(byte_of_column(line, 4) == 7);
  CHECK(byte_of_position("ab\r\ncd\nef", 1, 1) == 5);
  CHECK(byte_of_position("ab\r\ncd\nef", 0, 9) == 2);  // clamped before the "\r\n"
  CHECK(byte_of_position("ab\r\ncd\nef", 7, 0) == 9);
}

TEST_CASE("the dotted name around or before a position") {
  const std::string line = "eq total: cost.total = trip.distance.";
  const Span at = name_at(line, 30);
  CHECK(line.substr(at.begin, at.end - at.begin) == "trip.distance");  // the trailing dot is not part of it
  CHECK(name_at(line, 8).empty() == false);
  CHECK(name_at("a + b", 2).empty());
  const Span typed = name_before(line, line.size());
  CHECK(line.substr(typed.begin, typed.end - typed.begin) == "trip.distance.");
}

TEST_CASE("the smallest line edit") {
  CHECK_FALSE(line_edit("a\nb\n", "a\nb\n"));
  auto e = line_edit("a\nx\nc\n", "a\ny\ny2\nc\n");
  REQUIRE(e);
  CHECK(e->first == 1);
  CHECK(e->end_line == 2);
  CHECK(e->end_character == 0);
  CHECK(e->text == "y\ny2\n");
  // No final newline: the edit ends on the last line rather than past it.
  e = line_edit("a\nb", "a\nb\n");
  REQUIRE(e);
  CHECK(e->first == 1);
  CHECK(e->end_line == 1);
  CHECK(e->end_character == 1);
  CHECK(e->text == "b\n");
  CHECK(split_lines("a\r\nb\n") == std::vector<std::string>{"a", "b"});
}
