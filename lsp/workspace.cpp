#include "lsp/workspace.h"

#include <algorithm>
#include <filesystem>

#include "compiler/compile.h"
#include "compiler/limits.h"

namespace gs::lsp {

namespace fs = std::filesystem;

const ParsedFile* ModelCheck::file(const std::string& path) const {
  for (const auto& f : files)
    if (f->source.path == path) return f.get();
  return nullptr;
}

std::string Workspace::model_dir(const std::string& path) { return fs::path(path).lexically_normal().parent_path().string(); }

void Workspace::open(const std::string& path, std::string text) {
  open_[path] = std::move(text);
  touched(path);
}

void Workspace::change(const std::string& path, std::string text) { open(path, std::move(text)); }

void Workspace::close(const std::string& path) {
  open_.erase(path);
  touched(path);  // the file on disk counts again, which may differ from what was typed
}

void Workspace::touched(const std::string& path) { stale_.insert(model_dir(path)); }

const std::string* Workspace::text(const std::string& path) const {
  auto it = open_.find(path);
  return it == open_.end() ? nullptr : &it->second;
}

std::shared_ptr<const ParsedFile> Workspace::parsed(const std::string& path, std::string text) {
  auto& slot = parsed_[path];
  if (!slot || slot->source.text != text) slot = ParsedFile::parse(path, std::move(text));
  if (slot->ast) last_good_[path] = slot;
  return slot;
}

std::shared_ptr<const ModelCheck> Workspace::check(const std::string& dir) {
  auto out = std::make_shared<ModelCheck>();
  out->dir = dir;
  std::vector<std::string> paths;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    compiler::Diagnostics listing;  // an empty or unlistable directory simply contributes no files
    paths = compiler::expand_paths({dir}, listing);
  }
  for (const auto& [path, text] : open_)
    if (model_dir(path) == dir && std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  std::sort(paths.begin(), paths.end());

  // The same limits as `gstackc check`: each file, and all files together.
  size_t total = 0;
  bool all_parse = true;
  for (const auto& path : paths) {
    auto& diags = out->diagnostics[path];
    compiler::Diagnostics problem;
    std::string text;
    if (const std::string* open = this->text(path)) {
      if (open->size() > compiler::kMaxSourceBytes)
        problem.file_error(path, "E-READ", "file is too large (" + std::to_string(open->size()) + " bytes; the limit is " +
                                               std::to_string(compiler::kMaxSourceBytes >> 20) + " MiB)",
                           "split the model into several files");
      else
        text = *open;
    } else {
      compiler::SourceRead read = compiler::read_source(path, compiler::kMaxSourceBytes);
      if (read.text) text = std::move(*read.text);
      else problem.file_error(path, "E-READ", read.error, read.hint);
    }
    total += text.size();
    if (!problem.has_errors() && total > compiler::kMaxTotalSourceBytes)
      problem.file_error(path, "E-READ", "the model's files are too large together (more than " +
                                             std::to_string(compiler::kMaxTotalSourceBytes >> 20) + " MiB)",
                         "check that the right files are loaded");
    if (problem.has_errors()) {
      diags = problem.all();
      all_parse = false;
      continue;
    }
    auto f = parsed(path, std::move(text));
    out->files.push_back(f);
    diags = f->parse_diagnostics.all();
    all_parse = all_parse && f->ast.has_value();
  }

  // Only a model whose every file parses is checked further, as in `gstackc check`.
  if (all_parse) {
    std::vector<compiler::AFile> trees;
    for (const auto& f : out->files) trees.push_back(*f->ast);
    compiler::CompileResult result;
    compiler::check_parsed(trees, result);
    for (const auto& d : result.diagnostics.all()) out->diagnostics[d.file].push_back(d);
  }

  for (const auto& f : out->files) {
    if (f->ast) out->indexed.push_back(f);
    else if (auto it = last_good_.find(f->source.path); it != last_good_.end()) out->indexed.push_back(it->second);
  }
  out->index = std::make_unique<ModelIndex>(out->indexed);
  stale_.erase(dir);
  checks_[dir] = out;
  return out;
}

std::shared_ptr<const ModelCheck> Workspace::model_of(const std::string& path) {
  const std::string dir = model_dir(path);
  auto it = checks_.find(dir);
  if (it == checks_.end() || stale_.count(dir)) return check(dir);
  return it->second;
}

}  // namespace gs::lsp
