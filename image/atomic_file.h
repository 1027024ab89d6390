// Whole-file writes that never leave a half-written file behind and never write through a planted link.
// The bytes go to a fresh temporary file beside the target, created exclusively (O_CREAT|O_EXCL|
// O_NOFOLLOW) under a random name, flushed to disk, then moved into place in one step. Every writer of
// the project (-o, --out, export site, experiment-run, calibrate, gstackc) goes through here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

enum class WriteMode {
  replace,     // rename over the target; a target that is a symbolic link is refused, never followed
  create_new,  // link into place only if the target does not exist (content-addressed artifacts)
};

// Throws std::runtime_error naming the path when the file cannot be written or put in place. With
// create_new, returns false (and writes nothing) when the target already exists; otherwise true.
bool write_file_atomic(const std::string& path, std::string_view bytes, WriteMode mode = WriteMode::replace);
bool write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes, WriteMode mode = WriteMode::replace);

// A new, empty, private directory beside `target` (same parent, random suffix), for building a tree
// that then replaces the target whole. Throws std::runtime_error when it cannot be made.
std::string make_sibling_temp_dir(const std::string& target);

// Puts the folder `built` (made by make_sibling_temp_dir(target)) in the place of `target` in one step,
// so readers see either the old tree or the new one, never a mix; the old tree is then removed. A
// target that does not exist is created; one that is a symbolic link is refused.
void replace_dir_atomic(const std::string& built, const std::string& target);

// True when `path` itself (not what it points to) is a symbolic link.
bool is_symlink(const std::string& path);

}  // namespace gs
