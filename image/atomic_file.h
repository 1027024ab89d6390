// Whole-file writes that never leave a half-written file behind: the bytes go to a temporary file in
// the same directory, which then replaces the target in one rename.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

// Throws std::runtime_error naming the path when the file cannot be written or replaced.
void write_file_atomic(const std::string& path, std::string_view bytes);
void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace gs
