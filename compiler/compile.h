// Entry points of the front end: source files in, a checked registry image (or diagnostics) out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "image/image.h"

namespace gs::compiler {

struct CompileResult {
  std::optional<Image> image;  // set only when there were no errors
  Diagnostics diagnostics;
  bool unreadable_input = false;  // a path could not be read (exit 2 rather than 1)
};

// Each path is a .gstack file or a directory whose *.gstack files load in file-name order.
CompileResult compile_paths(const std::vector<std::string>& paths);
// Reads each path (a .gstack file, or a directory's *.gstack files in file-name order); unreadable paths
// are E-READ diagnostics.
std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags);
// Compiles in-memory sources in the order given (used by tests and the fuzzer).
CompileResult compile_sources(const std::vector<SourceFile>& sources);

}  // namespace gs::compiler
