// Content-addressed artifacts are written once and never replaced.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/research/store.h"

using namespace gs::research;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("sealing: the hash covers everything but itself") {
  Json sealed = seal_artifact({{"result", 42}, {"artifact_sha256", "forged"}});
  CHECK(sealed["artifact_sha256"] == canonical_sha256(Json{{"result", 42}}));
  CHECK(seal_is_valid(sealed));
  sealed["result"] = 43;
  CHECK_FALSE(seal_is_valid(sealed));
}

TEST_CASE("an artifact store never overwrites") {
  fs::path dir = fs::temp_directory_path() / "gs_store_test";
  fs::remove_all(dir);
  Json a = seal_artifact({{"run", 1}});
  StoredArtifact first = store_artifact(a, dir.string() + "/", "T-");
  CHECK(first.path == (dir / ("T-" + a["artifact_sha256"].get<std::string>() + ".json")).string());
  CHECK_FALSE(first.already_present);
  CHECK(slurp(first.path) == pretty_dump(a));
  StoredArtifact again = store_artifact(a, dir.string(), "T-");
  CHECK(again.already_present);
  // A named file holding different content is never replaced, and is left as it was.
  fs::path named = dir / "named.json";
  CHECK_FALSE(store_artifact(a, named.string()).already_present);
  Json b = seal_artifact({{"run", 2}});
  CHECK_THROWS_WITH(store_artifact(b, named.string()), doctest::Contains("never overwritten"));
  CHECK(slurp(named) == pretty_dump(a));
  // Content altered after sealing is refused before anything is written.
  Json tampered = a;
  tampered["run"] = 3;
  CHECK_THROWS_WITH(store_artifact(tampered, dir.string()), doctest::Contains("seal"));
  fs::remove_all(dir);
}
