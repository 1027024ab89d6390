#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "image/atomic_file.h"

namespace fs = std::filesystem;

TEST_CASE("atomic file: replaces the whole file and leaves no temporary behind") {
  fs::path dir = fs::path(GSTACK_BINARY_DIR) / "tests" / "atomic";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "out.txt").string();
  gs::write_file_atomic(path, std::string_view("first version, longer than the second\n"));
  gs::write_file_atomic(path, std::string_view("second\n"));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "second\n");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  CHECK_THROWS_WITH_AS(gs::write_file_atomic((dir / "missing" / "x").string(), std::string_view("x")),
                       doctest::Contains("cannot write"), std::runtime_error);
}
