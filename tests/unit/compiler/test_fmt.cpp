#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/compile.h"
#include "compiler/fmt.h"

using namespace gs::compiler;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string format_text(const std::string& text, const std::string& path = "t.gstack") {
  Diagnostics d;
  auto out = format_source(SourceFile::from_text(path, text), d);
  REQUIRE_MESSAGE(out, d.render_text());
  return *out;
}

// The tokens of a text with comments and whitespace removed: formatting must not change them.
std::string squeezed(const std::string& text) {
  std::string out;
  bool comment = false;
  for (char c : text) {
    if (c == '\n') comment = false;
    else if (c == '#') comment = true;
    if (!comment && c != ' ' && c != '\t' && c != '\n') out += c;
  }
  return out;
}

}  // namespace

TEST_CASE("fmt: every shipped model file is already canonical, and formatting is idempotent") {
  Diagnostics d;
  auto sources = read_sources({GSTACK_SOURCE_DIR "/model"}, d);
  REQUIRE(!d.has_errors());
  REQUIRE(sources.size() >= 20);
  for (const auto& src : sources) {
    CAPTURE(src.path);
    const std::string once = format_text(src.text, src.path);
    CHECK(once == src.text);  // `gstackc fmt --check model` exits 0
    CHECK(format_text(once, src.path) == once);
  }
}

TEST_CASE("fmt: a messy file formats to the golden result, keeps its comments and tokens, and is idempotent") {
  const std::string dir = GSTACK_SOURCE_DIR "/tests/unit/compiler/fmt/";
  const std::string messy = read_text(dir + "messy.gstack"), golden = read_text(dir + "messy.expected");
  const std::string out = format_text(messy);
  CHECK(out == golden);
  CHECK(format_text(out) == out);
  for (const char* comment : {"# leading comment", "# trailing comment", "# a comment inside a declaration", "# final comment"})
    CHECK(out.find(comment) != std::string::npos);
  // Only whitespace changes: the same tokens in the same order (comments aside, compared without spaces).
  CHECK(squeezed(out) == squeezed(messy));
}

TEST_CASE("fmt: a file that does not parse is refused with its diagnostic") {
  Diagnostics d;
  auto out = format_source(SourceFile::from_text("bad.gstack", "system s\nvar x : m \"unterminated\nvar = 3\n"), d);
  CHECK(!out);
  CHECK(d.has_errors());
  CHECK(d.render_text().find("bad.gstack:") != std::string::npos);
}

TEST_CASE("templates: members one level in, the closing brace in column 1, instance arguments like a call") {
  const std::string messy =
      "system t\n"
      "template  g( a,b ){\n"
      "/// doc\n"
      "var a.x : m \"x\"\n"
      "  eq x : a.x=b\n"
      " \"desc\"\n"
      "   }\n"
      "instance  z = g( a : t.z , b :t.y)\n"
      "export   input t.y\n";
  const std::string expected =
      "system t\n"
      "template g(a, b) {\n"
      "    /// doc\n"
      "    var a.x : m \"x\"\n"
      "    eq x: a.x = b\n"
      "        \"desc\"\n"
      "}\n"
      "instance z = g(a: t.z, b: t.y)\n"
      "export input t.y\n";
  CHECK(format_text(messy) == expected);
  CHECK(format_text(expected) == expected);
  CHECK(squeezed(format_text(messy)) == squeezed(messy));
}
