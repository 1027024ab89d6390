#include "compiler/print.h"

#include <cstdio>

#include "image/expr.h"

namespace gs::compiler {
namespace {

// Binding strength as in grammar/GStack.g4 (op_precedence): a higher number binds tighter.
int precedence(const AExpr& e) {
  if (e.k == AExpr::K::Neg) return op_precedence(Op::Neg);
  if (e.k == AExpr::K::Not) return op_precedence(Op::Not);
  if (e.k != AExpr::K::Binary) return 9;
  return op_precedence(e.op);
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out + "\"";
}

// An operand, in parentheses when it binds more loosely than its place needs.
std::string operand(const AExpr& e, int need) {
  const std::string s = print_expr(e);
  return precedence(e) < need ? "(" + s + ")" : s;
}

std::string names(const std::vector<ANameRef>& refs) {
  std::string s;
  for (const auto& r : refs) s += (s.empty() ? "" : ", ") + r.name;
  return s;
}

const char* head_word(Head h) {
  static const char* words[] = {"eq", "variant", "approx", "constraint", "iterate", "ode", "stochastic"};
  return words[int(h)];
}

}  // namespace

std::string print_expr(const AExpr& e) {
  switch (e.k) {
    case AExpr::K::Num: return number(e.number);
    case AExpr::K::Quantity: return number(e.number) + " [" + e.text + "]";
    case AExpr::K::Ref: return e.text;
    case AExpr::K::Neg: return "-" + operand(e.kids[0], 8);
    case AExpr::K::Not: return "not " + operand(e.kids[0], 4);
    case AExpr::K::Binary: {
      const int p = precedence(e);
      // Left-associative operators need parentheses for an equal-strength right operand; '^' is
      // right-associative, so there the left one needs them.
      const bool right_assoc = e.op == Op::Pow;
      return operand(e.kids[0], right_assoc ? p + 1 : p) + " " + op_token(e.op) + " " + operand(e.kids[1], right_assoc ? p : p + 1);
    }
    case AExpr::K::Call: {
      std::string s = e.text + "(";
      for (size_t i = 0; i < e.kids.size(); ++i) s += (i ? ", " : "") + print_expr(e.kids[i]);
      return s + ")";
    }
    case AExpr::K::Piecewise: {
      std::string s = "piecewise { ";
      for (size_t i = 0; i + 1 < e.kids.size(); i += 2) s += print_expr(e.kids[i]) + " if " + print_expr(e.kids[i + 1]) + "; ";
      return s + print_expr(e.kids.back()) + " otherwise }";
    }
  }
  return "?";
}

std::string print_decl(const ADecl& d) {
  std::string s;
  if (!d.doc.empty()) {
    size_t from = 0;
    for (size_t nl; (nl = d.doc.find('\n', from)) != std::string::npos; from = nl + 1) s += "/// " + d.doc.substr(from, nl - from) + "\n";
    s += "/// " + d.doc.substr(from) + "\n";
  }
  auto tail = [&](std::string line) {
    if (!d.description.empty()) line += " " + quoted(d.description);
    if (d.symbol_at.file) line += " symbol " + quoted(d.symbol);
    if (!d.refs.empty()) line += " ref " + names(d.refs);
    return line;
  };
  switch (d.k) {
    case ADecl::K::Dimension: return s + tail("dimension " + d.name);
    case ADecl::K::Kind: return s + tail("kind " + d.name + " of " + d.unit->text);
    case ADecl::K::Prefix: return s + "prefix " + d.name + " = " + number(d.scale);
    case ADecl::K::Unit:
      if (!d.base_dim.empty()) return s + tail("unit " + d.name + " : " + d.base_dim);
      if (!d.unit) return s + tail("unit " + d.name + " = " + number(d.scale));
      return s + tail("unit " + d.name + " = " + (d.scale != 1 ? number(d.scale) + " " : "") + d.unit->text);
    case ADecl::K::Ref: {
      std::string line = "ref " + d.name + " " + quoted(d.citation);
      if (!d.ref_kind.empty()) line += " kind " + d.ref_kind;
      if (!d.url.empty()) line += " url " + quoted(d.url);
      if (d.year) line += " year " + std::to_string(d.year);
      if (!d.locator.empty()) line += " at " + quoted(d.locator);
      return s + line;
    }
    case ADecl::K::Const: return s + tail("const " + d.name + " = " + number(d.value) + " " + d.unit->text);
    case ADecl::K::Var: {
      std::string line = tail("var " + d.name + " : " + d.unit->text);
      for (size_t i = 0; i < d.assumptions.size(); ++i) {
        const AAssume& a = d.assumptions[i];
        line += (i ? ", " : " assume ") + a.name;
        if (a.lo) line += "(" + number(*a.lo) + ", " + number(*a.hi) + ")";
      }
      if (d.foreign_at.file) line += " foreign " + quoted(d.foreign_reason);
      return s + line;
    }
    case ADecl::K::Export:
      return s + tail("export " + d.export_role + " " + (d.export_label.empty() ? "" : d.export_label + " = ") + d.export_target->name);
    case ADecl::K::Template: return s + "template " + d.name + "(" + names(d.params) + ") { ... }";
    case ADecl::K::Instance: return s + "instance " + d.name + " = " + d.template_name->name + "(...)";
    case ADecl::K::Relation: break;
  }
  std::string line = std::string(head_word(d.head)) + " " + d.name;
  if (d.variant_key) line += " [" + d.variant_key->name + "]";
  if (d.validity) line += " when " + print_expr(*d.validity);
  if (d.fallback) line += " fallback " + d.fallback->name;
  line += ": ";
  switch (d.body) {
    case ADecl::Body::Equation: line += print_expr(*d.lhs) + " = " + print_expr(*d.rhs); break;
    case ADecl::Body::Condition: line += print_expr(*d.cond); break;
    case ADecl::Body::Iterate:
      line += print_expr(*d.lhs) + " = " + print_expr(*d.rhs) + " over " + d.binder + " from " + print_expr(*d.initial) + " times " +
              print_expr(*d.count);
      break;
    case ADecl::Body::Differential:
      line += "derivative(" + d.target->name + ", " + d.indep->name + (d.order != 1 ? ", " + std::to_string(d.order) : "") + ") = " +
              print_expr(*d.rhs);
      break;
    case ADecl::Body::Stochastic: {
      line += print_expr(*d.lhs) + " ~ " + d.distribution + "(";
      for (size_t i = 0; i < d.dist_params.size(); ++i) line += (i ? ", " : "") + print_expr(d.dist_params[i]);
      line += ")";
      if (d.mean) line += " mean " + print_expr(*d.mean);
      break;
    }
  }
  return s + tail(line);
}

std::string print_files(const std::vector<AFile>& files) {
  std::string out;
  for (const auto& f : files) {
    out += "# " + (f.source ? f.source->path : std::string("?")) + "\n";
    out += "system " + f.system + (f.prefix.empty() ? "" : " prefix " + f.prefix) +
           (f.system_description.empty() ? "" : " " + quoted(f.system_description)) + "\n";
    if (!f.uses.empty()) out += "use " + names(f.uses) + "\n";
    for (const auto& d : f.decls) out += print_decl(d) + "\n";
    out += "\n";
  }
  return out;
}

}  // namespace gs::compiler
