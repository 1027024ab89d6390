// Entry points of the front end: source files in, a checked registry image (or diagnostics) out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ast.h"
#include "compiler/diagnostics.h"
#include "image/image.h"

namespace gs::compiler {

struct CompileResult {
  std::optional<Image> image;  // set only when there were no errors
  Diagnostics diagnostics;
  bool unreadable_input = false;  // a path could not be read (exit 2 rather than 1)
  std::string dump;               // the model as text after the pass named by `dump_after`, if any
};

// The front end's passes in the order they run (compiler/passes/passes.h); `--dump-after=PASS` prints
// the model as PASS left it: .gstack text after parse and expand_templates, the checked model's tables,
// resolved names, dimensions, postfix relations and definitions after the later ones.
inline constexpr const char* kDumpPasses[] = {"parse",       "expand_templates", "declare",           "check_forms", "resolve_names",
                                              "check_units", "lower",            "check_definitions", "check_cycles"};
// "parse, expand_templates, ...": the valid names, for a message.
std::string dump_pass_names();

// A source file's text, or why it cannot be one: missing, unreadable, a directory, a device or FIFO
// (never read: /dev/zero would never end), larger than max_bytes, or binary.
struct SourceRead {
  std::optional<std::string> text;
  std::string error, hint;
};
SourceRead read_source(const std::string& path, size_t max_bytes);

// The .gstack files the paths name: files as given, directories expanded to their *.gstack files in
// file-name order. Problems with a directory are reported as E-READ.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths, Diagnostics& diags);

// Each path is a .gstack file or a directory whose *.gstack files load in file-name order.
CompileResult compile_paths(const std::vector<std::string>& paths, const std::string& dump_after = "");
// Reads each path (a .gstack file, or a directory's *.gstack files in file-name order); unreadable paths
// are E-READ diagnostics.
std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags);
// Compiles in-memory sources in the order given (used by tests and the fuzzer).
CompileResult compile_sources(const std::vector<SourceFile>& sources, const std::string& dump_after = "");
// What compile_sources does after parsing, for callers that parse themselves (the language server keeps
// the trees): the declaration limit, then the passes from expand_templates on (which rewrites `files`).
// `result` holds any parse diagnostics already; with errors among them nothing more is checked.
// `dump_after` as in compile_sources.
void check_parsed(std::vector<AFile>& files, CompileResult& result, const std::string& dump_after = "");

}  // namespace gs::compiler
