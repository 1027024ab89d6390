// Which files `gpu-stack serve` hands out: only regular files inside the site folder.
#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>

#include "runtime/serve/static_files.h"

namespace fs = std::filesystem;

namespace {

struct Site {
  fs::path base, root;
  Site() {
    base = fs::temp_directory_path() / ("gs-serve-test-" + std::to_string(::getpid()));
    fs::remove_all(base);
    root = base / "site";
    fs::create_directories(root / "js");
    std::ofstream(root / "index.html") << "<!doctype html>";
    std::ofstream(root / "js" / "app.js") << "1;";
    std::ofstream(root / ".gpu-stack-site") << "marker";
    std::ofstream(base / "secret.txt") << "outside";
    fs::create_symlink(base / "secret.txt", root / "leak.txt");
    fs::create_directory_symlink(base, root / "up");
    fs::create_symlink(root / "js" / "app.js", root / "inside.js");
    root = fs::canonical(root);
  }
  ~Site() { fs::remove_all(base); }
};

}  // namespace

TEST_CASE("site paths: files inside are served with their type") {
  Site s;
  auto index = gs::serve::site_file(s.root, "/");
  REQUIRE(index);
  CHECK(index->path == s.root / "index.html");
  CHECK(index->content_type == "text/html; charset=utf-8");
  auto js = gs::serve::site_file(s.root, "/js//app.js");
  REQUIRE(js);
  CHECK(js->content_type == "text/javascript; charset=utf-8");
  CHECK_FALSE(gs::serve::site_file(s.root, "/js/"));  // a folder without index.html is not a file
  CHECK(gs::serve::site_file(s.root, "/inside.js"));  // a link that stays inside is fine
}

TEST_CASE("site paths: traversal, links out, hidden files and odd bytes are refused") {
  Site s;
  for (const char* p : {"/../secret.txt", "/js/../../secret.txt", "/./index.html", "/leak.txt", "/up/secret.txt", "/.gpu-stack-site",
                        "/js\\..\\..\\secret.txt", "", "index.html", "/missing.html", "/js"}) {
    INFO(p);
    CHECK_FALSE(gs::serve::site_file(s.root, p));
  }
  CHECK_FALSE(gs::serve::site_file(s.root, std::string("/index.html\0.js", 15)));
  CHECK_FALSE(gs::serve::site_file(s.root, "/" + std::string(2000, 'a')));
}
