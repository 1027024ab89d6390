#include "runtime/jit/object_cache.h"

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/atomic_file.h"
#include "image/image.h"

namespace gs {

namespace {

std::string& cache_dir_setting() {
  static std::string dir;
  return dir;
}

constexpr const char* kMagic = "gpu-stack jit object 1";
// Cone objects are kilobytes to a few megabytes; anything larger is not one of ours.
constexpr size_t kMaxEntryBytes = size_t(256) << 20;

// The whole file, read without following a link at its name; nothing when it is not a regular file.
std::optional<std::string> read_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && size_t(st.st_size) <= kMaxEntryBytes) {
    std::string bytes(size_t(st.st_size), '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n <= 0) break;
      got += size_t(n);
    }
    if (got == bytes.size()) out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

std::mutex& stats_mutex() {
  static std::mutex m;
  return m;
}

JitCacheStats& stats() {
  static JitCacheStats s;
  return s;
}

}  // namespace

void set_jit_cache_dir(std::string dir) { cache_dir_setting() = std::move(dir); }
const std::string& jit_cache_dir() { return cache_dir_setting(); }

JitCacheStats jit_cache_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex());
  return stats();
}

void count_jit_cache(size_t JitCacheStats::*field) {
  std::lock_guard<std::mutex> lock(stats_mutex());
  ++(stats().*field);
}

std::string ObjectFileCache::folder() const { return dir_ + "/jit"; }

std::string ObjectFileCache::path_of(const std::string& key) const { return folder() + "/" + key + ".gsobj"; }

bool ObjectFileCache::present(const std::string& key) const {
  struct stat st {};
  return ::lstat(path_of(key).c_str(), &st) == 0;
}

std::optional<CachedObject> ObjectFileCache::read(const std::string& key) const {
  if (is_symlink(folder())) return std::nullopt;
  const auto bytes = read_regular_file(path_of(key));
  if (!bytes) return std::nullopt;
  // Header: four lines (magic, symbol, sha256, size), then the object.
  std::istringstream in(*bytes);
  std::string magic, symbol_word, sha_word, size_word, symbol, sha;
  size_t size = 0;
  if (!std::getline(in, magic) || magic != kMagic) return std::nullopt;
  if (!(in >> symbol_word >> symbol >> sha_word >> sha >> size_word >> size) || symbol_word != "symbol" || sha_word != "sha256" ||
      size_word != "bytes" || in.get() != '\n')
    return std::nullopt;
  const auto at = in.tellg();
  if (at < 0 || size_t(at) + size != bytes->size()) return std::nullopt;
  CachedObject e{symbol, bytes->substr(size_t(at))};
  if (sha256_hex(e.object.data(), e.object.size()) != sha) return std::nullopt;
  return e;
}

bool ObjectFileCache::write(const std::string& key, const CachedObject& entry) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (is_symlink(folder())) return false;
  fs::create_directories(folder(), ec);
  if (ec || !fs::is_directory(fs::symlink_status(folder(), ec))) return false;
  std::string bytes = std::string(kMagic) + "\nsymbol " + entry.symbol + "\nsha256 " + sha256_hex(entry.object.data(), entry.object.size()) +
                      "\nbytes " + std::to_string(entry.object.size()) + "\n";
  bytes += entry.object;
  try {
    write_file_atomic(path_of(key), bytes);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace gs
