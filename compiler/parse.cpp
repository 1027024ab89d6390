// ANTLR parse tree -> AST. The tree is walked with dynamic_cast on the labelled alternatives, which keeps
// this file independent of the runtime's visitor/Any API.
#include <antlr4-runtime.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "GStackLexer.h"
#include "GStackParser.h"
#include "compiler/ast.h"
#include "compiler/limits.h"

namespace gs::compiler {
namespace {

using P = gsgen::GStackParser;

// Limits that keep every recursive pass (ANTLR's parser and prediction, the AST builder, the unit
// checker, the AST's destructor) far from the end of the stack, whatever the input.
//
// ANTLR recurses once per parenthesis, prefix operator and right-associative '^' while it parses, so
// those are counted on the token stream before parsing. Each one counts until its bracket closes (or, at
// the outermost level, until the next declaration starts): an over-estimate, but no real relation comes
// near it.
constexpr size_t kMaxNesting = 256;
// Chains of left-associative operators (a + b + c ...) are parsed by a loop but still make a deep tree,
// which is measured after parsing without recursion.
constexpr size_t kMaxTreeDepth = 2000;

Location token_at(const SourceFile& src, antlr4::Token* t) {
  return {&src, unsigned(t->getLine()), unsigned(t->getCharPositionInLine() + 1)};
}

// The first byte that is not part of well-formed UTF-8 (no overlong forms, surrogates or values past
// U+10FFFF), located by line and code-point column like ANTLR's own positions.
std::optional<Location> first_invalid_utf8(const SourceFile& src) {
  const auto* p = reinterpret_cast<const unsigned char*>(src.text.data());
  const size_t n = src.text.size();
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len > 1) {
      uint32_t cp = c & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[i + k] & 0x3F);
      static const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= min_for_len[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (!ok) return Location{&src, line, column};
    if (c == '\n') ++line, column = 1;
    else ++column;
    i += len;
  }
  return std::nullopt;
}

std::optional<Location> too_deep_tokens(antlr4::CommonTokenStream& tokens, const SourceFile& src) {
  using L = gsgen::GStackLexer;
  std::vector<size_t> level{0};  // per open bracket: the prefix operators and powers seen inside it
  size_t depth = 0;              // open brackets plus every entry of `level`
  bool after_operand = false;    // a '-' or '+' here is binary, not a prefix
  for (antlr4::Token* t : tokens.getTokens()) {
    const size_t type = t->getType();
    if (type == antlr4::Token::EOF) break;
    const std::string text = type == L::NUMBER || type == L::IDENT || type == L::QNAME ? "" : t->getText();
    bool counts = false;
    if (text == "(" || text == "[" || text == "{") {
      level.push_back(0), ++depth;
      if (depth > kMaxNesting) return token_at(src, t);
    } else if ((text == ")" || text == "]" || text == "}") && level.size() > 1) {
      depth -= 1 + level.back();
      level.pop_back();
    } else if (text == "^" || type == L::NOT || ((text == "-" || text == "+") && !after_operand)) {
      counts = true;
    } else if (level.size() == 1 && (type == L::DOC || type == L::VAR || type == L::CONST || type == L::UNIT ||
               type == L::PREFIX || type == L::DIMENSION || type == L::EQ_KW || type == L::VARIANT ||
               type == L::APPROX || type == L::CONSTRAINT || type == L::ITERATE || type == L::ODE ||
               type == L::STOCHASTIC || type == L::USE || type == L::EXPORT ||
               type == L::TEMPLATE || type == L::INSTANCE)) {
      depth -= level[0], level[0] = 0;
    }
    if (counts) {
      ++level.back(), ++depth;
      if (depth > kMaxNesting) return token_at(src, t);
    }
    after_operand = type == L::NUMBER || type == L::IDENT || type == L::QNAME || text == ")" || text == "]" || text == "}";
  }
  return std::nullopt;
}

std::optional<Location> too_deep_tree(antlr4::tree::ParseTree* root, const SourceFile& src) {
  std::vector<std::pair<antlr4::tree::ParseTree*, size_t>> work{{root, 1}};
  while (!work.empty()) {
    auto [node, depth] = work.back();
    work.pop_back();
    if (depth > kMaxTreeDepth) {
      if (auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(node)) return token_at(src, ctx->getStart());
      if (auto* term = dynamic_cast<antlr4::tree::TerminalNode*>(node)) return token_at(src, term->getSymbol());
      return Location{&src, 1, 1};
    }
    for (auto* kid : node->children) work.push_back({kid, depth + 1});
  }
  return std::nullopt;
}

// What a token is, in the language's terms, for "unexpected ..." messages.
std::string describe(antlr4::Token* t) {
  using L = gsgen::GStackLexer;
  if (!t || t->getType() == antlr4::Token::EOF) return "end of file";
  const std::string text = t->getText();
  switch (t->getType()) {
    case L::IDENT:
    case L::QNAME: return "name '" + text + "'";
    case L::NUMBER: return "number " + text;
    case L::STRING: return "string " + (text.size() > 40 ? text.substr(0, 37) + "...\"" : text);
    case L::DOC: return "doc comment";
    case L::ERRCHAR: return "character '" + text + "'";
    default: return "'" + text + "'";
  }
}

// The tokens a parser state accepts, as a reader would name them; empty when there are too many to help.
std::string expected_text(const antlr4::misc::IntervalSet& set, const antlr4::dfa::Vocabulary& vocabulary) {
  using L = gsgen::GStackLexer;
  std::vector<std::string> names;
  for (ssize_t type : set.toList()) {
    std::string name = type == antlr4::Token::EOF ? "end of file"
                     : type == L::IDENT ? "a name"
                     : type == L::QNAME ? "a dotted name"
                     : type == L::NUMBER ? "a number"
                     : type == L::STRING ? "a string"
                     : type == L::DOC ? "a doc comment"
                     : vocabulary.getLiteralName(size_t(type));  // keywords and punctuation, quoted
    if (name.empty()) continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty() || names.size() > 6) return "";
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  return out;
}

// The innermost construct being parsed, for a hint in its own terms.
std::string hint_for(antlr4::RuleContext* ctx) {
  for (; ctx; ctx = dynamic_cast<antlr4::RuleContext*>(ctx->parent)) {
    if (dynamic_cast<P::PiecewiseContext*>(ctx))
      return "a piecewise needs an `otherwise` branch last: piecewise { a if x > 0; b otherwise }";
    if (dynamic_cast<P::UnitExprContext*>(ctx)) return "a unit is written like kW*h or USD/(GPU*h) or 1";
    if (dynamic_cast<P::VarDeclContext*>(ctx)) return "a variable is declared as: var system.name : unit \"description\"";
    if (dynamic_cast<P::ConstDeclContext*>(ctx))
      return "a constant is declared as: const system.name = 1.5 unit \"description\" ref source";
    if (dynamic_cast<P::RelationDeclContext*>(ctx)) return "a relation is written as: eq name: system.x = expression \"description\"";
    if (dynamic_cast<P::SystemDeclContext*>(ctx)) return "a file starts with: system name \"description\"";
  }
  return "see docs/language.md for the form of each declaration";
}

// Turns ANTLR's reports into messages in the language's terms. Only the first error of a file is kept:
// the parser's recovery after it produces follow-on errors that have no cause of their own.
class ErrorCollector : public antlr4::BaseErrorListener {
 public:
  ErrorCollector(const SourceFile& src, Diagnostics& diags) : src_(src), diags_(diags) {}
  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line, size_t col,
                   const std::string&, std::exception_ptr) override {
    if (++count > 1) return;
    Location at{&src_, unsigned(line), unsigned(col + 1)};
    const bool at_end = offending && offending->getType() == antlr4::Token::EOF;
    if (at_end) at = end_of_text();
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    std::string hint = hint_for(parser ? parser->getContext() : nullptr);
    std::string message;
    const bool in_piecewise = parser && offending && inside_piecewise(*parser, offending);
    if (in_piecewise && (at_end || offending->getText() == "}")) {
      message = "a piecewise needs an `otherwise` branch";
      hint = "end it with a value and `otherwise`: piecewise { a if x > 0; b otherwise }";
    } else if (offending && offending->getType() == gsgen::GStackLexer::ERRCHAR && offending->getText() == "\"") {
      message = "unterminated string";
      hint = "a string ends with \" on the same line (write \\\" for a quote inside it)";
    } else if (offending && offending->getType() == gsgen::GStackLexer::ERRCHAR) {
      message = "unexpected character '" + offending->getText() + "'";
      hint = "this character is not part of the language; names use letters, digits and '_', comments start with #";
    } else {
      message = "unexpected " + describe(offending);
      if (parser) {
        const std::string expected = expected_text(parser->getExpectedTokens(), parser->getVocabulary());
        if (!expected.empty()) message += "; expected " + expected;
      }
    }
    diags_.error(at, "E-SYNTAX", message, hint);
  }
  int count = 0;

 private:
  // The end of the last line with text: "unexpected end of file" points there, with its line shown.
  Location end_of_text() const {
    size_t line = src_.lines.size();
    while (line > 0 && src_.lines[line - 1].find_first_not_of(" \t") == std::string::npos) --line;
    if (line == 0) return {&src_, 1, 1};
    unsigned column = 1;
    for (unsigned char c : src_.lines[line - 1]) column += (c & 0xC0) != 0x80;  // code points, as ANTLR counts
    return {&src_, unsigned(line), column};
  }

  // Whether the token lies inside the braces of a `piecewise { ... }` (the innermost open brace).
  static bool inside_piecewise(antlr4::Parser& parser, antlr4::Token* offending) {
    auto* tokens = dynamic_cast<antlr4::BufferedTokenStream*>(parser.getTokenStream());
    if (!tokens) return false;
    std::vector<bool> braces;  // per open brace: whether it opened a piecewise
    bool after_piecewise = false;
    for (antlr4::Token* t : tokens->getTokens()) {
      if (t->getTokenIndex() >= offending->getTokenIndex() || t->getType() == antlr4::Token::EOF) break;
      const std::string text = t->getType() == gsgen::GStackLexer::STRING ? "" : t->getText();
      if (text == "{") braces.push_back(after_piecewise);
      else if (text == "}" && !braces.empty()) braces.pop_back();
      after_piecewise = t->getType() == gsgen::GStackLexer::PIECEWISE;
    }
    return !braces.empty() && braces.back();
  }

  const SourceFile& src_;
  Diagnostics& diags_;
};

class Builder {
 public:
  Builder(const SourceFile& src, antlr4::CharStream& input) : src_(src), input_(input) {}

  Location at(antlr4::Token* t) const { return {&src_, unsigned(t->getLine()), unsigned(t->getCharPositionInLine() + 1)}; }
  Location at(antlr4::ParserRuleContext* c) const { return at(c->getStart()); }

  static std::string unquote(antlr4::Token* t) {
    if (!t) return "";
    std::string s = t->getText(), out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] == '\\' && i + 2 < s.size()) {
        char c = s[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
      } else {
        out += s[i];
      }
    }
    return out;
  }
  static double number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }
  static double signed_number(P::SignedNumberContext* c) {
    double v = number(c->NUMBER()->getText());
    return c->getStart()->getText() == "-" ? -v : v;
  }
  std::string docs(P::DocsContext* c) const {
    std::string out;
    if (!c) return out;
    for (auto* d : c->DOC()) {
      std::string line = d->getText().substr(3);
      if (!line.empty() && line[0] == ' ') line.erase(0, 1);
      out += (out.empty() ? "" : "\n") + line;
    }
    return out;
  }
  // Token indices count code points, not bytes, so the text must come from the char stream: slicing
  // src_.text with them goes wrong as soon as anything earlier in the file is not ASCII.
  AUnit unit(P::UnitExprContext* c) const {
    size_t a = c->getStart()->getStartIndex(), b = c->getStop()->getStopIndex();
    return {input_.getText(antlr4::misc::Interval(a, b)), at(c)};
  }
  ANameRef name_ref(antlr4::Token* t) const { return {t->getText(), at(t)}; }
  ANameRef name_ref(P::QnameContext* q) const { return {q->getText(), at(q)}; }
  std::vector<ANameRef> refs(P::RefListContext* c) const {
    std::vector<ANameRef> out;
    if (c)
      for (auto* id : c->IDENT()) out.push_back({id->getText(), at(id->getSymbol())});
    return out;
  }

  AExpr expr(P::ExprContext* c) const {
    AExpr e;
    e.at = e.begin = at(c);
    // A binary node is located at its operator, where a caret explains a mismatch best.
    auto binary = [&](Op op, P::ExprContext* a, P::ExprContext* b) {
      e.k = AExpr::K::Binary, e.op = op;
      e.kids.push_back(expr(a)), e.kids.push_back(expr(b));
      auto* op_token = dynamic_cast<antlr4::tree::TerminalNode*>(c->children.at(1));
      e.at = op_token ? at(op_token->getSymbol()) : e.kids[0].at;
      return e;
    };
    if (auto* x = dynamic_cast<P::NumContext*>(c)) {
      e.k = AExpr::K::Num, e.number = number(x->NUMBER()->getText());
    } else if (auto* x = dynamic_cast<P::QuantityContext*>(c)) {
      e.k = AExpr::K::Quantity, e.number = number(x->NUMBER()->getText());
      AUnit u = unit(x->unitExpr());
      e.text = u.text, e.unit_at = u.at;
    } else if (auto* x = dynamic_cast<P::RefContext*>(c)) {
      e.k = AExpr::K::Ref, e.text = x->qname()->getText();
    } else if (auto* x = dynamic_cast<P::ParenContext*>(c)) {
      return expr(x->expr());
    } else if (auto* x = dynamic_cast<P::UnaryContext*>(c)) {
      if (x->op->getText() == "+") return expr(x->expr());
      e.k = AExpr::K::Neg, e.kids.push_back(expr(x->expr()));
    } else if (auto* x = dynamic_cast<P::PowContext*>(c)) {
      return binary(Op::Pow, x->expr(0), x->expr(1));
    } else if (auto* x = dynamic_cast<P::MulDivContext*>(c)) {
      return binary(x->op->getText() == "*" ? Op::Mul : Op::Div, x->expr(0), x->expr(1));
    } else if (auto* x = dynamic_cast<P::AddSubContext*>(c)) {
      return binary(x->op->getText() == "+" ? Op::Add : Op::Sub, x->expr(0), x->expr(1));
    } else if (auto* x = dynamic_cast<P::CompareContext*>(c)) {
      const std::string o = x->op->getText();
      Op op = o == "<" ? Op::Lt : o == "<=" ? Op::Le : o == ">" ? Op::Gt : o == ">=" ? Op::Ge : o == "==" ? Op::Eq : Op::Ne;
      return binary(op, x->expr(0), x->expr(1));
    } else if (auto* x = dynamic_cast<P::AndContext*>(c)) {
      return binary(Op::And, x->expr(0), x->expr(1));
    } else if (auto* x = dynamic_cast<P::OrContext*>(c)) {
      return binary(Op::Or, x->expr(0), x->expr(1));
    } else if (auto* x = dynamic_cast<P::NotContext*>(c)) {
      e.k = AExpr::K::Not, e.kids.push_back(expr(x->expr()));
    } else if (auto* x = dynamic_cast<P::CallContext*>(c)) {
      e.k = AExpr::K::Call, e.text = x->fn->getText();
      for (auto* a : x->expr()) e.kids.push_back(expr(a));
    } else if (auto* x = dynamic_cast<P::PiecewiseContext*>(c)) {
      e.k = AExpr::K::Piecewise;
      for (auto* p : x->piece()) e.kids.push_back(expr(p->value)), e.kids.push_back(expr(p->cond));
      e.kids.push_back(expr(x->otherwise));
    }
    return e;
  }

  void symbol(P::SymbolClauseContext* c, ADecl& d) const {
    if (c) d.symbol = unquote(c->sym), d.symbol_at = at(c->sym);
  }

  ADecl var(P::VarDeclContext* x) const {
    ADecl d;
    d.k = ADecl::K::Var, d.name = x->name->getText(), d.at = at(x->name), d.unit = unit(x->unitExpr());
    d.description = unquote(x->desc), d.refs = refs(x->refList());
    if (x->assumeList())
      for (auto* a : x->assumeList()->assumption()) {
        AAssume as{a->IDENT()->getText(), {}, {}, at(a)};
        if (a->lo) as.lo = signed_number(a->lo), as.hi = signed_number(a->hi);
        d.assumptions.push_back(as);
      }
    if (auto* f = x->foreignClause()) d.foreign_reason = unquote(f->reason), d.foreign_at = at(f);
    symbol(x->symbolClause(), d);
    return d;
  }

  ADecl relation(P::RelationDeclContext* c) const {
    ADecl d;
    d.k = ADecl::K::Relation;
    d.keyword_at = at(c);
    d.name = c->name->getText(), d.at = at(c->name);
    const std::string h = c->head->getText();
    d.head = h == "eq" ? Head::Eq : h == "variant" ? Head::Variant : h == "approx" ? Head::Approx
           : h == "constraint" ? Head::Constraint : h == "iterate" ? Head::Iterate : h == "ode" ? Head::Ode : Head::Stochastic;
    if (auto* k = c->variantKey()) {
      // The key is the text between the brackets; a number may start it ([1f1b]), so it spans tokens.
      auto* first = k->children.at(1);
      auto* last = k->children.at(k->children.size() - 2);
      size_t a = dynamic_cast<antlr4::tree::TerminalNode*>(first) ? static_cast<antlr4::tree::TerminalNode*>(first)->getSymbol()->getStartIndex()
                                                                   : static_cast<antlr4::ParserRuleContext*>(first)->getStart()->getStartIndex();
      size_t b = dynamic_cast<antlr4::tree::TerminalNode*>(last) ? static_cast<antlr4::tree::TerminalNode*>(last)->getSymbol()->getStopIndex()
                                                                  : static_cast<antlr4::ParserRuleContext*>(last)->getStop()->getStopIndex();
      d.variant_key = ANameRef{k->getStart()->getInputStream()->getText(antlr4::misc::Interval(a, b)), at(k->getStart())};
      d.variant_key->at.column += 1;  // past the '['
    }
    if (c->validity()) d.validity = expr(c->validity()->expr());
    if (auto* f = c->fallbackClause()) d.fallback = name_ref(f->target);
    d.description = unquote(c->desc);
    d.refs = refs(c->refList());
    auto* body = c->body();
    if (auto* b = dynamic_cast<P::BodyEquationContext*>(body)) {
      d.body = ADecl::Body::Equation, d.lhs = expr(b->lhs), d.rhs = expr(b->rhs);
    } else if (auto* b = dynamic_cast<P::BodyIterateContext*>(body)) {
      d.body = ADecl::Body::Iterate, d.lhs = expr(b->lhs), d.rhs = expr(b->map);
      d.binder = b->binder->getText(), d.binder_at = at(b->binder);
      d.initial = expr(b->init), d.count = expr(b->count);
    } else if (auto* b = dynamic_cast<P::BodyDifferentialContext*>(body)) {
      d.body = ADecl::Body::Differential, d.target = name_ref(b->target), d.indep = name_ref(b->indep);
      d.rhs = expr(b->rhs);
      if (b->order) d.order = unsigned(std::strtoul(b->order->getText().c_str(), nullptr, 10));
    } else if (auto* b = dynamic_cast<P::BodyStochasticContext*>(body)) {
      d.body = ADecl::Body::Stochastic, d.lhs = expr(b->lhs), d.distribution = b->dist->getText();
      for (auto* e : b->expr())
        if (e != b->lhs && e != b->mean) d.dist_params.push_back(expr(e));
      if (b->mean) d.mean = expr(b->mean);
    } else if (auto* b = dynamic_cast<P::BodyConditionContext*>(body)) {
      d.body = ADecl::Body::Condition, d.cond = expr(b->cond);
    }
    return d;
  }

  ADecl decl(P::DeclContext* c) const {
    ADecl d;
    if (auto* x = c->dimensionDecl()) {
      d.k = ADecl::K::Dimension, d.name = x->name->getText(), d.at = at(x->name), d.description = unquote(x->desc);
    } else if (auto* x = c->kindDecl()) {
      d.k = ADecl::K::Kind, d.name = x->name->getText(), d.at = at(x->name), d.description = unquote(x->desc);
      d.base_dim = x->of->getText(), d.base_at = at(x->of), d.unit = unit(x->unitExpr());
    } else if (auto* x = c->unitDecl()) {
      d.k = ADecl::K::Unit, d.name = x->name->getText(), d.at = at(x->name), d.description = unquote(x->desc);
      if (x->base) d.base_dim = x->base->getText(), d.base_at = at(x->base);
      if (x->scale) d.scale = signed_number(x->scale);
      if (x->unitExpr()) d.unit = unit(x->unitExpr());
    } else if (auto* x = c->prefixDecl()) {
      d.k = ADecl::K::Prefix, d.name = x->name->getText(), d.at = at(x->name), d.scale = signed_number(x->signedNumber());
    } else if (auto* x = c->refDecl()) {
      d.k = ADecl::K::Ref, d.name = x->name->getText(), d.at = at(x->name), d.citation = unquote(x->citation);
      for (auto* f : x->refField()) {
        if (f->kind) d.ref_kind = f->kind->getText();
        if (f->url) d.url = unquote(f->url);
        if (f->year) d.year = int(std::clamp(number(f->year->getText()), -1e9, 1e9));  // out-of-range casts are UB
        if (f->locator) d.locator = unquote(f->locator);
      }
    } else if (auto* x = c->varDecl()) {
      d = var(x);
    } else if (auto* x = c->constDecl()) {
      d.k = ADecl::K::Const, d.name = x->name->getText(), d.at = at(x->name), d.value = signed_number(x->value);
      d.unit = unit(x->unitExpr()), d.description = unquote(x->desc), d.refs = refs(x->refList());
      symbol(x->symbolClause(), d);
    } else if (auto* x = c->relationDecl()) {
      d = relation(x);
    } else if (auto* x = c->exportDecl()) {
      d.k = ADecl::K::Export, d.name = x->role->getText(), d.at = at(x->role), d.export_role = d.name;
      if (x->label) d.export_label = x->label->getText();
      d.export_target = name_ref(x->target), d.description = unquote(x->desc);
    } else if (auto* x = c->templateDecl()) {
      d.k = ADecl::K::Template, d.name = x->name->getText(), d.at = at(x->name);
      for (auto* p : x->params) d.params.push_back(name_ref(p));
      for (auto* m : x->templateMember()) {
        ADecl member = m->varDecl() ? var(m->varDecl()) : relation(m->relationDecl());
        member.keyword_at = at(dynamic_cast<antlr4::ParserRuleContext*>(m->children.back()));
        member.doc = docs(m->docs());
        d.members.push_back(std::move(member));
      }
    } else if (auto* x = c->instanceDecl()) {
      d.k = ADecl::K::Instance, d.name = x->name->getText(), d.at = at(x->name), d.template_name = name_ref(x->template_);
      for (auto* a : x->templateArg()) {
        ATemplateArg arg{name_ref(a->param), {}, {}};
        if (a->text) arg.text = unquote(a->text);
        else arg.value = expr(a->value);
        d.args.push_back(std::move(arg));
      }
    }
    // The declaration's own context, not `c`: `c` starts at the doc comment when there is one.
    d.keyword_at = at(dynamic_cast<antlr4::ParserRuleContext*>(c->children.back()));
    d.doc = docs(c->docs());
    return d;
  }

  AFile file(P::File_Context* c) const {
    AFile f;
    f.source = &src_;
    auto* s = c->systemDecl();
    f.system = s->name->getText(), f.system_at = at(s->name), f.system_description = unquote(s->desc);
    if (s->ns) f.prefix = s->ns->getText(), f.prefix_at = at(s->ns);
    if (auto* fc = s->foreignClause()) f.foreign_reason = unquote(fc->reason), f.foreign_at = at(fc);
    f.system_doc = docs(c->docs());
    for (auto* u : c->useDecl())
      for (auto* id : u->IDENT()) f.uses.push_back({id->getText(), at(id->getSymbol())});
    const auto decls = c->decl();
    f.decls.reserve(decls.size());
    for (auto* d : decls) f.decls.push_back(decl(d));
    return f;
  }

 private:
  const SourceFile& src_;
  antlr4::CharStream& input_;
};

}  // namespace

std::optional<AFile> parse_file(const SourceFile& src, Diagnostics& diags) {
  if (auto bad = first_invalid_utf8(src)) {
    diags.error(*bad, "E-ENCODING", "this file is not valid UTF-8", "save the file as UTF-8");
    return std::nullopt;
  }
  std::optional<antlr4::ANTLRInputStream> input;
  try {
    input.emplace(src.text);
  } catch (const std::exception&) {  // the runtime's own decoder; first_invalid_utf8 should catch it first
    diags.error({&src, 1, 1}, "E-ENCODING", "this file is not valid UTF-8", "save the file as UTF-8");
    return std::nullopt;
  }
  gsgen::GStackLexer lexer(&*input);
  lexer.removeErrorListeners();
  // Count the tokens before keeping them: the token stream holds every token in memory at once.
  size_t token_count = 0;
  for (auto t = lexer.nextToken(); t->getType() != antlr4::Token::EOF; t = lexer.nextToken()) {
    if (++token_count > kMaxTokensPerFile) {
      diags.error(token_at(src, t.get()), "E-TOO-LARGE", "this file has more than " + std::to_string(kMaxTokensPerFile) + " tokens",
                  "split the model into several files");
      return std::nullopt;
    }
  }
  lexer.reset();
  antlr4::CommonTokenStream tokens(&lexer);
  ErrorCollector errors(src, diags);
  lexer.addErrorListener(&errors);
  tokens.fill();
  if (auto deep = too_deep_tokens(tokens, src)) {
    diags.error(*deep, "E-NESTING", "expression nested too deeply (more than " + std::to_string(kMaxNesting) +
                " levels of parentheses, prefix operators and powers)", "split it into intermediate variables");
    return std::nullopt;
  }
  gsgen::GStackParser parser(&tokens);
  parser.removeErrorListeners();
  parser.addErrorListener(&errors);
  auto* tree = parser.file_();
  if (errors.count > 0) return std::nullopt;
  // Stray characters reach the parser as ERRCHAR tokens, which always fail above.
  if (auto deep = too_deep_tree(tree, src)) {
    diags.error(*deep, "E-NESTING", "expression nested too deeply (more than " + std::to_string(kMaxTreeDepth) +
                " levels of operators)", "split it into intermediate variables");
    return std::nullopt;
  }
  return Builder(src, *input).file(tree);
}

}  // namespace gs::compiler
