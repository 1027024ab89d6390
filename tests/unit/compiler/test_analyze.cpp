// Whole-model checks through the API: the shipped model compiles cleanly, and unreadable or special input
// files are refused before they are read. Each semantic rule's diagnostic (code, location, message, hint)
// is a case with inline expectations in tests/diagnostics (90_* to 103_* were the model texts of this file).
#include <doctest/doctest.h>

#include "compiler/compile.h"
#include "helpers.h"

using namespace gs;
using namespace gs::testing;

TEST_CASE("the shipped model compiles cleanly") {
  auto r = compiler::compile_paths({GSTACK_SOURCE_DIR "/model"});
  INFO(r.diagnostics.render_text());
  CHECK(r.image.has_value());
  CHECK(r.diagnostics.all().empty());
}

TEST_CASE("unreadable paths are reported as such") {
  auto r = compiler::compile_paths({GSTACK_SOURCE_DIR "/no/such/file.gstack"});
  CHECK(r.unreadable_input);
  REQUIRE(r.diagnostics.all().size() == 1);
  CHECK(r.diagnostics.all()[0].code == "E-READ");
  CHECK(r.diagnostics.all()[0].message == "cannot read file: no such file");
}

TEST_CASE("special files are refused before they are read") {
  // /dev/zero would never end; a directory named as a file is not a source; neither aborts.
  auto r = compiler::read_source("/dev/zero", 1 << 20);
  CHECK_FALSE(r.text.has_value());
  CHECK(r.error == "is not a regular file (a device, FIFO or socket)");
  r = compiler::read_source(GSTACK_SOURCE_DIR "/model", 1 << 20);
  CHECK(r.error == "is a directory, not a .gstack file");
  r = compiler::read_source(GSTACK_SOURCE_DIR "/model/00_units.gstack", 100);
  CHECK(r.error.rfind("file is too large", 0) == 0);
  r = compiler::read_source(GSTACK_SOURCE_DIR "/model/00_units.gstack", 1 << 20);
  REQUIRE(r.text.has_value());
  CHECK(r.text->rfind("///", 0) == 0);
}
