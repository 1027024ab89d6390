// The on-disk cache of compiled cones: relocatable object files that the JIT links instead of compiling,
// keyed by a hash of the cone's content, the target (triple, CPU, features), the LLVM version and the
// JIT's options, so a repeated command skips compilation. No LLVM here: the entries are opaque bytes.
//
// An entry is <dir>/jit/<key>.gsobj: a short text header (format, symbol prefix, SHA-256 and size of
// the object) and the object. Reads refuse links and anything but a regular file, and ignore an entry
// whose header or checksum does not match (it is then rebuilt and replaced). Writes are atomic (a
// temporary file beside the entry, then a rename; image/atomic_file.h) and never go through a planted
// link; a cache that cannot be written only costs a compile next time.
#pragma once

#include <optional>
#include <string>

namespace gs {

// The folder of the process's on-disk cache. Empty, the default, keeps compiled code in memory only; the
// command-line front end sets it (docs/runtime.md, "Compiled-cone cache"). A Jit reads it when it is
// made. Not thread-safe: set it before making Jits.
void set_jit_cache_dir(std::string dir);
const std::string& jit_cache_dir();

// What the process's Jits did with the on-disk cache so far (for tests and benchmarks).
struct JitCacheStats {
  size_t loaded = 0;    // cones linked from an entry: no compilation
  size_t compiled = 0;  // cones compiled with the cache on (absent or unusable entry)
  size_t stored = 0;    // entries written
  size_t rejected = 0;  // entries present but unusable (corrupt, not an object, a link): ignored and rebuilt
};
JitCacheStats jit_cache_stats();
void count_jit_cache(size_t JitCacheStats::*field);

struct CachedObject {
  std::string symbol;  // the prefix of the object's entry points (<symbol>_one, <symbol>_batch)
  std::string object;  // relocatable object file bytes
};

class ObjectFileCache {
 public:
  explicit ObjectFileCache(std::string dir) : dir_(std::move(dir)) {}
  // The entry, or nothing when it is absent, not a regular file, a link, too large or corrupt.
  std::optional<CachedObject> read(const std::string& key) const;
  // Stores the entry atomically; false (and nothing written) when the folder cannot be made or written
  // or is a link.
  bool write(const std::string& key, const CachedObject& entry) const;
  std::string path_of(const std::string& key) const;
  // Whether anything (even a link or a corrupt file) sits under the entry's name.
  bool present(const std::string& key) const;

 private:
  std::string folder() const;
  std::string dir_;
};

}  // namespace gs
