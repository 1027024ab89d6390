// The on-disk compiled-cone cache (runtime/jit/object_cache.h): a second Jit over the same folder links
// the stored object instead of compiling; entries are written atomically, a planted link is never
// followed, and a corrupt entry is ignored and rebuilt.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/jit/jit.h"
#include "runtime/jit/object_cache.h"
#include "tests/unit/support/model_fixture.h"

namespace {

namespace fs = std::filesystem;
using gs::testing::compile_with_units;
using gs::testing::program;

const char* kModel = R"(
system t
ref r "test"
var t.price : USD/(kW*h) "tariff" ref r
var t.power : kW "power" ref r
var t.hours : h "duration" ref r
var t.cost : USD "cost" ref r
eq cost: t.cost = t.price * t.power * t.hours / 7
)";

// A fresh folder under the build tree for one test (never the user's home).
struct CacheDir {
  fs::path dir;
  explicit CacheDir(const std::string& name) : dir(fs::path(GSTACK_BINARY_DIR) / "tests" / "jit_cache" / name) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    if (fs::exists(dir / "jit"))
      for (const auto& e : fs::directory_iterator(dir / "jit")) out.push_back(e.path());
    return out;
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Sets the process's cache folder for the Jits a test makes, and clears it again.
struct UseCacheDir {
  explicit UseCacheDir(const fs::path& dir) { gs::set_jit_cache_dir(dir.string()); }
  ~UseCacheDir() { gs::set_jit_cache_dir(""); }
};

// Compiles or loads the cost cone with a fresh Jit (`vectorize` as given), checks its answers, and says
// whether it came from the disk.
bool cost_cone_loaded(const gs::Image& img, bool vectorize = true) {
  const size_t before = gs::jit_cache_stats().loaded;
  gs::Jit jit(gs::JitOptions{vectorize});
  gs::CompiledCone c = jit.compile(program(img, {"t.price", "t.power", "t.hours"}, {"t.cost"}));
  const double in[] = {1e-7, 1000.0, 3600.0};
  double out[1];
  c.one(in, out);
  CHECK(out[0] == doctest::Approx(1e-7 * 1000.0 * 3600.0 / 7).epsilon(1e-14));
  std::vector<double> rows, outs(100);
  for (int i = 0; i < 100; ++i) rows.insert(rows.end(), {1e-7, 1000.0 + i, 3600.0});
  c.batch(rows.data(), outs.data(), 100);
  CHECK(outs[99] == doctest::Approx(1e-7 * 1099.0 * 3600.0 / 7).epsilon(1e-14));
  return gs::jit_cache_stats().loaded > before;
}

}  // namespace

TEST_CASE("object cache: a second Jit over the same folder links the stored object instead of compiling") {
  const auto img = compile_with_units(kModel);
  {
    // Off (the default): nothing is written anywhere.
    const auto before = gs::jit_cache_stats();
    CHECK_FALSE(cost_cone_loaded(img));
    CHECK(gs::jit_cache_stats().compiled == before.compiled);
  }
  const CacheDir d("reuse");
  const UseCacheDir use(d.dir);
  const auto before = gs::jit_cache_stats();
  CHECK_FALSE(cost_cone_loaded(img));
  const auto entries = d.entries();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].extension() == ".gsobj");
  CHECK(cost_cone_loaded(img));
  CHECK(cost_cone_loaded(img));
  CHECK(d.entries().size() == 1);  // no temporary file left beside it
  // Another JIT option is another key: the scalar kernel compiles and stores its own entry.
  CHECK_FALSE(cost_cone_loaded(img, false));
  CHECK(cost_cone_loaded(img, false));
  CHECK(d.entries().size() == 2);
  const auto after = gs::jit_cache_stats();
  CHECK(after.compiled - before.compiled == 2);
  CHECK(after.stored - before.stored == 2);
  CHECK(after.loaded - before.loaded == 3);
  CHECK(after.rejected == before.rejected);
}

TEST_CASE("object cache: a corrupt or truncated entry is ignored and rebuilt") {
  const CacheDir d("corrupt");
  const UseCacheDir use(d.dir);
  const auto img = compile_with_units(kModel);
  cost_cone_loaded(img);
  const fs::path entry = d.entries().at(0);
  const std::string good = slurp(entry);
  std::string flipped = good;
  flipped[flipped.size() - 100] ^= 0x5a;  // inside the object: the checksum no longer matches
  for (const std::string& bad : {flipped, good.substr(0, good.size() / 2), std::string("garbage\n"), std::string()}) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bad;
    const size_t rejected = gs::jit_cache_stats().rejected;
    CHECK_FALSE(cost_cone_loaded(img));  // compiled again ...
    CHECK(gs::jit_cache_stats().rejected == rejected + 1);
    CHECK(slurp(entry) == good);  // ... and the entry replaced by a good one (code generation is deterministic)
    CHECK(cost_cone_loaded(img));
  }
  // A valid header and checksum around bytes that are not an object file: refused before linking.
  gs::ObjectFileCache cache(d.dir.string());
  const std::string key = entry.stem().string();
  REQUIRE(cache.write(key, {"c0000000000000000_0", "not an object file"}));
  REQUIRE(cache.read(key).has_value());
  CHECK_FALSE(cost_cone_loaded(img));
  CHECK(cost_cone_loaded(img));
}

TEST_CASE("object cache: a planted link is never followed, for reading or writing") {
  const CacheDir d("links");
  const UseCacheDir use(d.dir);
  const auto img = compile_with_units(kModel);
  cost_cone_loaded(img);
  const fs::path entry = d.entries().at(0);
  const std::string good = slurp(entry);
  // The entry replaced by a link to a file elsewhere: not read through, and not written through.
  const fs::path victim = d.dir / "victim.txt";
  std::ofstream(victim) << "keep me";
  fs::remove(entry);
  fs::create_symlink(victim, entry);
  CHECK_FALSE(cost_cone_loaded(img));
  CHECK(slurp(victim) == "keep me");
  CHECK(fs::is_symlink(fs::symlink_status(entry)));
  // The jit folder itself a link to another folder: nothing is read from or written into it.
  const fs::path elsewhere = d.dir / "elsewhere";
  fs::create_directories(elsewhere);
  fs::remove_all(d.dir / "jit");
  fs::create_directory_symlink(elsewhere, d.dir / "jit");
  CHECK_FALSE(cost_cone_loaded(img));
  CHECK(fs::is_empty(elsewhere));
  // Writes are atomic: an entry appears whole under its name or not at all (no temporary left behind).
  const CacheDir clean("atomic");
  gs::ObjectFileCache cache(clean.dir.string());
  REQUIRE(cache.write("k", {"s", good}));
  REQUIRE(clean.entries().size() == 1);
  CHECK(cache.read("k")->object == good);
}
