#include "compiler/diagnostics.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "image/escape.h"

namespace gs::compiler {

SourceFile SourceFile::from_text(std::string path, std::string text) {
  SourceFile f{std::move(path), std::move(text), {}};
  std::istringstream in(f.text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    f.lines.push_back(line);
  }
  return f;
}

void Diagnostics::add(Severity s, const Location& at, std::string code, std::string message, std::string hint) {
  Diagnostic d;
  d.severity = s, d.code = std::move(code), d.message = std::move(message), d.hint = std::move(hint);
  if (at.file) {
    d.file = at.file->path;
    d.line = at.line, d.column = at.column;
    if (at.line >= 1 && at.line <= at.file->lines.size()) d.source_line = at.file->lines[at.line - 1];
  }
  items_.push_back(std::move(d));
}

void Diagnostics::error(const Location& at, std::string code, std::string message, std::string hint) {
  add(Severity::Error, at, std::move(code), std::move(message), std::move(hint));
}

void Diagnostics::warning(const Location& at, std::string code, std::string message, std::string hint) {
  add(Severity::Warning, at, std::move(code), std::move(message), std::move(hint));
}

void Diagnostics::file_error(const std::string& path, std::string code, std::string message, std::string hint) {
  Diagnostic d;
  d.code = std::move(code), d.message = std::move(message), d.hint = std::move(hint), d.file = path;
  items_.push_back(std::move(d));
}

void Diagnostics::annotate_since(size_t first, const std::string& note) {
  for (size_t i = first; i < items_.size(); ++i) items_[i].message += " (" + note + ")";
}

bool Diagnostics::has_errors() const {
  return std::any_of(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

namespace {

// Paths and messages can hold control characters: shown as \xNN (tabs stay, so the caret lines up).
std::string escaped(const std::string& s) { return escape_control(s); }

// The source line under a message: control characters become the one-column Unicode "control
// pictures" (U+2400 + code) rather than escapes, so the caret below stays in its column.
std::string shown_line(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\t') || c == 0x7F) {
      const unsigned cp = c == 0x7F ? 0x2421 : 0x2400 + c;
      out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace

std::string Diagnostics::render_text() const {
  std::ostringstream os;
  for (const auto& d : items_) {
    const char* sev = d.severity == Severity::Error ? "error" : "warning";
    if (d.line) os << escaped(d.file) << ":" << d.line << ":" << d.column << ": ";
    else if (!d.file.empty()) os << escaped(d.file) << ": ";
    os << sev << "[" << d.code << "]: " << escaped(d.message) << "\n";
    if (d.line && !d.source_line.empty()) {
      os << "    " << shown_line(d.source_line) << "\n    ";
      // Columns count code points (as ANTLR does), so step over whole UTF-8 sequences: one pad per character.
      unsigned col = 1;
      for (size_t i = 0; col < d.column && i < d.source_line.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(d.source_line[i]);
        if ((c & 0xC0) == 0x80) continue;  // continuation byte
        os << (c == '\t' ? '\t' : ' ');
        ++col;
      }
      os << "^\n";
    }
    if (!d.hint.empty()) os << "  hint: " << escaped(d.hint) << "\n";
  }
  return os.str();
}

std::string Diagnostics::render_json() const {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const auto& d : items_) {
    arr.push_back({{"file", d.file}, {"line", d.line}, {"column", d.column},
                   {"severity", d.severity == Severity::Error ? "error" : "warning"}, {"code", d.code},
                   {"message", d.message}, {"hint", d.hint}});
  }
  // A path need not be UTF-8 on Linux; replace bad bytes rather than throw.
  return arr.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace gs::compiler
