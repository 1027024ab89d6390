#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "image/atomic_file.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path scratch(const std::string& name) {
  fs::path dir = fs::path(GSTACK_BINARY_DIR) / "tests" / "atomic" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("atomic file: replaces the whole file and leaves no temporary behind") {
  fs::path dir = scratch("replace");
  std::string path = (dir / "out.txt").string();
  gs::write_file_atomic(path, std::string_view("first version, longer than the second\n"));
  gs::write_file_atomic(path, std::string_view("second\n"));
  CHECK(slurp(path) == "second\n");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  CHECK_THROWS_WITH_AS(gs::write_file_atomic((dir / "missing" / "x").string(), std::string_view("x")),
                       doctest::Contains("cannot write"), std::runtime_error);
}

TEST_CASE("atomic file: a planted symbolic link is never written through") {
  fs::path dir = scratch("symlink");
  const fs::path victim = dir / "victim.txt";
  std::ofstream(victim) << "precious\n";
  // The old temporary name, <out>.tmp.<pid>, planted as a link to the victim: no longer used at all.
  const fs::path out = dir / "out.txt";
  fs::create_symlink(victim, out.string() + ".tmp." + std::to_string(::getpid()));
  gs::write_file_atomic(out.string(), std::string_view("new\n"));
  CHECK(slurp(out) == "new\n");
  CHECK(slurp(victim) == "precious\n");
  CHECK_FALSE(fs::is_symlink(out));
  // The target itself a link: refused, and the file it points to is untouched.
  const fs::path link = dir / "link.txt";
  fs::create_symlink(victim, link);
  CHECK_THROWS_WITH_AS(gs::write_file_atomic(link.string(), std::string_view("evil\n")), doctest::Contains("symbolic link"),
                       std::runtime_error);
  CHECK(slurp(victim) == "precious\n");
  CHECK(fs::is_symlink(link));
  // Nothing but the victim, the two links and the output: no temporary left behind.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 4);
}

TEST_CASE("atomic file: create_new never replaces an existing name, a dangling link included") {
  fs::path dir = scratch("create_new");
  const fs::path path = dir / "artifact.json";
  CHECK(gs::write_file_atomic(path.string(), std::string_view("one\n"), gs::WriteMode::create_new));
  CHECK_FALSE(gs::write_file_atomic(path.string(), std::string_view("two\n"), gs::WriteMode::create_new));
  CHECK(slurp(path) == "one\n");
  const fs::path dangling = dir / "dangling.json";
  fs::create_symlink(dir / "nowhere", dangling);
  CHECK_FALSE(gs::write_file_atomic(dangling.string(), std::string_view("x\n"), gs::WriteMode::create_new));
  CHECK_FALSE(fs::exists(dir / "nowhere"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);
}

TEST_CASE("atomic folder: a tree built beside the target replaces it whole") {
  fs::path dir = scratch("dir");
  const fs::path target = dir / "site";
  fs::create_directories(target / "old");
  std::ofstream(target / "old" / "a.txt") << "old\n";
  std::string built = gs::make_sibling_temp_dir(target.string());
  CHECK(fs::path(built).parent_path() == dir);
  gs::write_file_atomic((fs::path(built) / "b.txt").string(), std::string_view("new\n"));
  gs::replace_dir_atomic(built, target.string());
  CHECK(slurp(target / "b.txt") == "new\n");
  CHECK_FALSE(fs::exists(target / "old"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // the old tree is gone
  // A target that does not exist yet is created; a target that is a link is refused.
  built = gs::make_sibling_temp_dir((dir / "fresh").string());
  gs::replace_dir_atomic(built, (dir / "fresh").string());
  CHECK(fs::is_directory(dir / "fresh"));
  fs::create_symlink(target, dir / "linked");
  built = gs::make_sibling_temp_dir((dir / "linked").string());
  CHECK_THROWS_WITH_AS(gs::replace_dir_atomic(built, (dir / "linked").string()), doctest::Contains("symbolic link"), std::runtime_error);
  CHECK(slurp(target / "b.txt") == "new\n");
}
