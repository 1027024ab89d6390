// The documents the editor has open and the checks of the model directories they belong to. A
// document's model is every *.gstack file of its directory, in file-name order (what `gstackc check DIR`
// loads), with the editor's text in place of the file on disk for open documents. A check reparses only
// files whose text changed since the last one.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "lsp/model_index.h"

namespace gs::lsp {

struct ModelCheck {
  std::string dir;
  std::vector<std::shared_ptr<const ParsedFile>> files;  // in load order; a file may lack a tree
  // Every file of the model, with its diagnostics (none for a clean file). Files that could not be read
  // (and the editor does not have open) are here with the reason.
  std::map<std::string, std::vector<compiler::Diagnostic>> diagnostics;
  // The index uses the last tree that parsed for each file, so hover, definition and completion keep
  // working while the file being typed is broken.
  std::vector<std::shared_ptr<const ParsedFile>> indexed;
  std::unique_ptr<ModelIndex> index;
  const ParsedFile* file(const std::string& path) const;  // as checked, or nullptr
};

class Workspace {
 public:
  void open(const std::string& path, std::string text);
  void change(const std::string& path, std::string text);
  void close(const std::string& path);
  // Something changed on disk (a save, a file watcher's event): the file's model is checked again.
  void touched(const std::string& path);

  const std::string* text(const std::string& path) const;  // an open document's text
  static std::string model_dir(const std::string& path);

  // Directories whose check is out of date, and running those checks.
  const std::set<std::string>& stale() const { return stale_; }
  std::shared_ptr<const ModelCheck> check(const std::string& dir);
  // The current check of the model `path` belongs to, checked now if it is out of date.
  std::shared_ptr<const ModelCheck> model_of(const std::string& path);

 private:
  std::shared_ptr<const ParsedFile> parsed(const std::string& path, std::string text);
  std::map<std::string, std::string> open_;
  std::map<std::string, std::shared_ptr<const ParsedFile>> parsed_, last_good_;
  std::map<std::string, std::shared_ptr<const ModelCheck>> checks_;
  std::set<std::string> stale_;
};

}  // namespace gs::lsp
