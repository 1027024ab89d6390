#include "compiler/fmt.h"

#include <antlr4-runtime.h>

#include <algorithm>
#include <vector>

#include "GStackLexer.h"
#include "GStackParser.h"
#include "compiler/ast.h"

namespace gs::compiler {
namespace {

using P = gsgen::GStackParser;
using L = gsgen::GStackLexer;

// What the parse tree says about each token that its neighbours alone do not.
struct TokenRole {
  bool line_start = false;    // begins a declaration (or is a doc line): column 1, on its own line
  int unit = -1;              // index of the unit expression it belongs to, -1 outside units
  bool tight_after = false;   // a prefix sign: no space before its operand
  bool tight_before = false;  // '(' of a call, assumption or distribution; ':' of a relation
  bool in_key = false;        // inside a variant key [..]: words keep the spacing they were written with
  int nest = 0;               // inside a template's braces: its members are indented one level
};

class Roles {
 public:
  explicit Roles(size_t n) : roles(n) {}
  std::vector<TokenRole> roles;

  void walk(antlr4::tree::ParseTree* node, int unit, bool in_key, int nest = 0) {
    auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(node);
    if (!ctx) return;
    if (dynamic_cast<P::TemplateMemberContext*>(ctx)) ++nest;
    const bool template_decl = dynamic_cast<P::TemplateDeclContext*>(ctx) != nullptr;
    if (unit < 0 && dynamic_cast<P::UnitExprContext*>(ctx)) unit = int(ctx->getStart()->getTokenIndex());
    if (dynamic_cast<P::VariantKeyContext*>(ctx)) in_key = true;
    // The keyword of every declaration (after its doc lines, which are marked below).
    if (dynamic_cast<P::SystemDeclContext*>(ctx) || dynamic_cast<P::UseDeclContext*>(ctx) || dynamic_cast<P::DimensionDeclContext*>(ctx) ||
        dynamic_cast<P::KindDeclContext*>(ctx) ||
        dynamic_cast<P::UnitDeclContext*>(ctx) || dynamic_cast<P::PrefixDeclContext*>(ctx) || dynamic_cast<P::RefDeclContext*>(ctx) ||
        dynamic_cast<P::VarDeclContext*>(ctx) || dynamic_cast<P::ConstDeclContext*>(ctx) || dynamic_cast<P::RelationDeclContext*>(ctx) ||
        dynamic_cast<P::ExportDeclContext*>(ctx) || dynamic_cast<P::TemplateDeclContext*>(ctx) || dynamic_cast<P::InstanceDeclContext*>(ctx))
      at(ctx->getStart()).line_start = true;
    const bool sign_parent = dynamic_cast<P::UnaryContext*>(ctx) || dynamic_cast<P::SignedNumberContext*>(ctx) ||
                             dynamic_cast<P::UnitExponentContext*>(ctx);
    const bool call_parent = dynamic_cast<P::CallContext*>(ctx) || dynamic_cast<P::AssumptionContext*>(ctx) ||
                             dynamic_cast<P::BodyDifferentialContext*>(ctx) || dynamic_cast<P::BodyStochasticContext*>(ctx) ||
                             dynamic_cast<P::TemplateDeclContext*>(ctx) || dynamic_cast<P::InstanceDeclContext*>(ctx);
    const bool relation = dynamic_cast<P::RelationDeclContext*>(ctx) != nullptr || dynamic_cast<P::TemplateArgContext*>(ctx) != nullptr;
    for (auto* child : ctx->children) {
      if (auto* leaf = dynamic_cast<antlr4::tree::TerminalNode*>(child)) {
        antlr4::Token* t = leaf->getSymbol();
        if (t->getType() == antlr4::Token::EOF) continue;
        TokenRole& r = at(t);
        r.unit = unit, r.in_key = in_key, r.nest = nest;
        const std::string text = t->getText();
        if (template_decl && text == "}") r.line_start = true;  // a template's closing brace: column 1
        if (sign_parent && (text == "-" || text == "+")) r.tight_after = true;
        if (call_parent && text == "(") r.tight_before = true;
        if (relation && text == ":") r.tight_before = true;
        if (t->getType() == L::DOC) r.line_start = true;
      } else {
        walk(child, unit, in_key, nest);
      }
    }
  }

 private:
  TokenRole& at(antlr4::Token* t) { return roles[t->getTokenIndex()]; }
};

bool is_open(const std::string& t) { return t == "(" || t == "[" || t == "{"; }
bool is_close(const std::string& t) { return t == ")" || t == "]" || t == "}"; }

std::string space_between(const antlr4::Token* a, const TokenRole& ra, const antlr4::Token* b, const TokenRole& rb, bool written_tight) {
  const std::string x = a->getText(), y = b->getText();
  if (ra.unit >= 0 && ra.unit == rb.unit) return "";
  if (ra.in_key && rb.in_key && x != "[" && y != "]") return written_tight ? "" : " ";
  if (y == ")" || y == "]" || y == "," || y == ";") return "";
  if (x == "(" || x == "[") return "";
  if (ra.tight_after || rb.tight_before) return "";
  return " ";
}

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// The comments in the text between two tokens, and where the line breaks fall.
struct Gap {
  std::string trailing;               // a comment on the line of the previous token
  std::vector<std::string> comments;  // comments on lines of their own, in order
  std::vector<int> blank_before;      // blank lines before each own-line comment
  int newlines = 0;                   // line breaks in the gap
  int blank_after = 0;                // blank lines between the last comment (or token) and the next token
};

Gap read_gap(const std::string& text) {
  Gap g;
  int blank = 0;
  bool line_has_content = false;  // the current line holds the previous token or a comment
  bool first_line = true;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++g.newlines;
      if (!line_has_content && !first_line) ++blank;
      line_has_content = false, first_line = false;
      ++i;
    } else if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      const size_t end = text.find('\n', i);
      std::string comment = rstrip(text.substr(i, end == std::string::npos ? std::string::npos : end - i));
      if (first_line) {
        g.trailing = comment;
      } else {
        g.comments.push_back(comment), g.blank_before.push_back(blank);
        blank = 0;
      }
      line_has_content = true;
      i = end == std::string::npos ? text.size() : end;
    } else {
      ++i;  // spaces, tabs, carriage returns
    }
  }
  g.blank_after = blank;
  return g;
}

}  // namespace

std::optional<std::string> format_source(const SourceFile& src, Diagnostics& diags) {
  if (!parse_file(src, diags)) return std::nullopt;  // the checker's own limits and messages first

  antlr4::ANTLRInputStream input(src.text);
  L lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream stream(&lexer);
  stream.fill();
  P parser(&stream);
  parser.removeErrorListeners();
  P::File_Context* tree = parser.file_();
  std::vector<antlr4::Token*> tokens;
  for (antlr4::Token* t : stream.getTokens())
    if (t->getType() != antlr4::Token::EOF) tokens.push_back(t);
  Roles roles(stream.getTokens().size());
  roles.walk(tree, -1, false);

  std::vector<std::string> lines;
  std::string line;
  int depth = 0;  // brackets open inside the current declaration
  auto flush = [&] {
    lines.push_back(rstrip(line));
    line.clear();
  };
  auto blanks = [&](int n) {
    n = std::min(n, 2);
    if (lines.empty()) return;  // none at the start of the file
    for (int i = 0; i < n; ++i) lines.emplace_back();
  };
  auto gap_text = [&](size_t from, size_t to) {  // code-point positions [from, to)
    return to > from ? input.getText(antlr4::misc::Interval(from, to - 1)) : std::string();
  };

  size_t prev_end = 0;  // code point after the previous token
  const antlr4::Token* prev = nullptr;
  for (antlr4::Token* t : tokens) {
    const TokenRole& role = roles.roles[t->getTokenIndex()];
    const std::string text = t->getType() == L::DOC ? rstrip(t->getText()) : t->getText();
    // Before the first token, the gap's first line is a line of its own, not the end of a token's line.
    const Gap g = read_gap((prev ? "" : "\n") + gap_text(prev_end, t->getStartIndex()));
    if (role.line_start) depth = 0;
    const int open_at_start = std::max(0, depth - (is_close(text) ? 1 : 0));
    const size_t base = size_t(4 * role.nest);  // template members sit one level in
    const std::string indent = std::string(role.line_start ? base : base + size_t(4 + 4 * open_at_start), ' ');
    if (!g.trailing.empty()) line += (line.empty() ? "" : "  ") + g.trailing;
    const bool new_line = prev == nullptr || g.newlines > 0 || role.line_start || !g.trailing.empty();
    if (new_line) {
      if (prev) flush();
      for (size_t i = 0; i < g.comments.size(); ++i) {
        blanks(g.blank_before[i]);
        lines.push_back(indent + g.comments[i]);
      }
      blanks(g.blank_after);
      line = indent + text;
    } else {
      const bool written_tight = t->getStartIndex() == prev_end;
      line += space_between(prev, roles.roles[prev->getTokenIndex()], t, role, written_tight) + text;
    }
    if (is_open(text)) ++depth;
    if (is_close(text) && depth > 0) --depth;
    prev = t, prev_end = t->getStopIndex() + 1;
  }
  const Gap tail = read_gap(gap_text(prev_end, input.size()));
  if (!tail.trailing.empty()) line += (line.empty() ? "" : "  ") + tail.trailing;
  if (prev || !line.empty()) flush();
  for (size_t i = 0; i < tail.comments.size(); ++i) {
    blanks(tail.blank_before[i]);
    lines.push_back(tail.comments[i]);
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace gs::compiler
