#include "compiler/compile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/analyze.h"
#include "compiler/ast.h"

namespace gs::compiler {

CompileResult compile_sources(const std::vector<SourceFile>& sources) {
  CompileResult result;
  std::vector<AFile> files;
  for (const auto& src : sources)
    if (auto f = parse_file(src, result.diagnostics)) files.push_back(std::move(*f));
  if (result.diagnostics.has_errors()) return result;
  Image img = analyze(files, result.diagnostics);
  if (!result.diagnostics.has_errors()) result.image = std::move(img);
  return result;
}

std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.path().extension() == ".gstack") found.push_back(entry.path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) diags.file_error(p, "E-READ", "directory has no .gstack files");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  std::vector<SourceFile> sources;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::error_code ec;
    if (!in || fs::is_directory(f, ec)) {
      diags.file_error(f, "E-READ", "cannot read file");
      continue;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    sources.push_back(SourceFile::from_text(f, ss.str()));
  }
  return sources;
}

CompileResult compile_paths(const std::vector<std::string>& paths) {
  CompileResult result;
  std::vector<SourceFile> sources = read_sources(paths, result.diagnostics);
  if (result.diagnostics.has_errors()) {
    result.unreadable_input = true;
    return result;
  }
  return compile_sources(sources);
}

}  // namespace gs::compiler
