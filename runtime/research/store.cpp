#include "runtime/research/store.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "image/atomic_file.h"

namespace gs::research {
namespace fs = std::filesystem;

Json seal_artifact(Json payload) {
  payload.erase("artifact_sha256");
  std::string h = canonical_sha256(payload);
  payload["artifact_sha256"] = h;
  return payload;
}

bool seal_is_valid(const Json& sealed) {
  if (!sealed.contains("artifact_sha256")) return false;
  Json body = sealed;
  body.erase("artifact_sha256");
  return canonical_sha256(body) == sealed["artifact_sha256"];
}

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

StoredArtifact store_artifact(const Json& sealed, const std::string& output, const std::string& prefix) {
  if (!seal_is_valid(sealed)) throw std::runtime_error("refusing to store an artifact whose seal does not match its content");
  StoredArtifact r;
  r.sha256 = sealed["artifact_sha256"].get<std::string>();
  fs::path target(output);
  bool is_dir = fs::is_directory(target) || (!output.empty() && output.back() == '/');
  if (is_dir) target /= prefix + r.sha256 + ".json";
  r.path = target.string();
  std::string bytes = pretty_dump(sealed);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  if (fs::is_symlink(target)) throw std::runtime_error(r.path + " is a symbolic link; artifacts are never written through one");
  if (fs::exists(target)) {
    if (slurp(target) != bytes) throw std::runtime_error(r.path + " already holds different content; artifacts are never overwritten");
    r.already_present = true;
    return r;
  }
  // Created beside the target and linked into place only if the name is still free, so a concurrent
  // writer's file (or a planted link) is never replaced.
  if (!write_file_atomic(r.path, bytes, WriteMode::create_new)) {
    if (!fs::is_symlink(target) && slurp(target) == bytes) {
      r.already_present = true;
      return r;
    }
    throw std::runtime_error(r.path + " already exists with different content; artifacts are never overwritten");
  }
  return r;
}

}  // namespace gs::research
