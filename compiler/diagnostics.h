// Diagnostics of the front end: every error carries a file, line and column, the source line with a
// caret under the offending column, and where possible a hint.
#pragma once

#include <string>
#include <vector>

namespace gs::compiler {

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<std::string> lines;
  static SourceFile from_text(std::string path, std::string text);
};

struct Location {
  const SourceFile* file = nullptr;
  unsigned line = 0;    // 1-based
  unsigned column = 0;  // 1-based
};

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;  // stable, e.g. "E-UNKNOWN-NAME"
  std::string message;
  std::string hint;
  std::string file;
  unsigned line = 0, column = 0;
  std::string source_line;
};

class Diagnostics {
 public:
  void error(const Location& at, std::string code, std::string message, std::string hint = "");
  void warning(const Location& at, std::string code, std::string message, std::string hint = "");
  void file_error(const std::string& path, std::string code, std::string message, std::string hint = "");
  bool has_errors() const;
  size_t size() const { return items_.size(); }
  // Appends `note` to the message of every diagnostic from index `first` on (e.g. which instance of a
  // template a diagnostic inside the template belongs to).
  void annotate_since(size_t first, const std::string& note);
  const std::vector<Diagnostic>& all() const { return items_; }
  // Appends another list's diagnostics after these (a pass's per-declaration lists, in declaration order).
  void append(const Diagnostics& other) { items_.insert(items_.end(), other.items_.begin(), other.items_.end()); }
  std::string render_text() const;  // human form, one block per diagnostic
  std::string render_json() const;  // array of {file, line, column, severity, code, message, hint}

 private:
  void add(Severity s, const Location& at, std::string code, std::string message, std::string hint);
  std::vector<Diagnostic> items_;
};

}  // namespace gs::compiler
