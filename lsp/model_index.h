// What the language server knows about one model directory: every file as last read (with its syntax
// tree when it parses), the checker's diagnostics per file, and an index of names: where each variable,
// constant, reference, system and unit is declared, and every place a name is used.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ast.h"
#include "compiler/diagnostics.h"

namespace gs::lsp {

// One file as read for a check. Held through shared_ptr and never moved once built, because the tree's
// locations point at `source`.
struct ParsedFile {
  compiler::SourceFile source;
  std::optional<compiler::AFile> ast;  // nothing when the file does not parse
  compiler::Diagnostics parse_diagnostics;
  static std::shared_ptr<const ParsedFile> parse(std::string path, std::string text);
};

// The kinds of names, each its own name space.
enum class NameKind { Variable, Reference, System, Unit };

struct Declaration {
  NameKind kind = NameKind::Variable;
  std::string name, path;
  unsigned line = 0, column = 0;              // the name's first character (1-based code points)
  const compiler::ADecl* decl = nullptr;      // nothing for a system
  const compiler::AFile* file = nullptr;
};

struct Occurrence {
  NameKind kind = NameKind::Variable;
  std::string name, path;
  unsigned line = 0, column = 0;
  bool declaration = false;
};

// A relation that gives a variable its value (or bounds it), for hover.
struct Definer {
  const compiler::ADecl* relation = nullptr;
  std::string path;
};

class ModelIndex {
 public:
  // Indexes the trees of `files` (files without one are skipped). The files must outlive the index.
  explicit ModelIndex(const std::vector<std::shared_ptr<const ParsedFile>>& files);

  // The declaration a name means: a variable or constant first, then a reference, a system, a unit.
  const Declaration* find(const std::string& name) const;
  const Declaration* find(NameKind kind, const std::string& name) const;
  std::vector<const Declaration*> variables() const;  // variables and constants, by name
  const std::vector<Occurrence>& occurrences() const { return occurrences_; }
  std::vector<Definer> definers(const std::string& variable) const;

 private:
  void index_file(const compiler::AFile& file);
  void index_expr(const compiler::AExpr& e);
  void use(NameKind kind, const std::string& name, const compiler::Location& at, bool declaration);
  std::map<std::string, Declaration> names_[4];  // one name space per NameKind
  std::vector<Occurrence> occurrences_;
  std::map<std::string, std::vector<Definer>> definers_;
};

// The markdown shown on hover for a declaration.
std::string hover_markdown(const ModelIndex& index, const Declaration& d);

}  // namespace gs::lsp
