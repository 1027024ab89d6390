// Reading an input text file the user names (a preset, a scenario, a search space, a mapping table):
// regular files only, never a device or FIFO (/dev/zero would never end), and never larger than a stated
// limit, so a wrong path is a clear error instead of a hang or an exhausted memory.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gs {

struct TextFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Input files of the project's formats are kilobytes; 16 MiB leaves room for any real one.
inline constexpr size_t kMaxInputFileBytes = size_t(16) << 20;

// The file's text. Throws TextFileError naming `what` ("preset", "scenario", ...) and the path when the
// file is missing, unreadable, not a regular file, or larger than `max_bytes`.
std::string read_text_file(const std::string& path, const std::string& what, size_t max_bytes = kMaxInputFileBytes);

}  // namespace gs
