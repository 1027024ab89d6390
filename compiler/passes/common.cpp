// Helpers the passes share: unit parsing with diagnostics, duplicate messages, names as written.
#include <cstdio>

#include "compiler/passes/passes.h"
#include "image/suggest.h"

namespace gs::compiler::pass_util {

std::optional<Quantity> check_unit(const AUnit& u, const UnitTable& units, Diagnostics& diags) {
  std::string err;
  size_t off = 0;
  auto q = units.parse(u.text, &err, &off);
  if (!q) {
    std::string hint;
    if (auto p = err.find("unknown unit '"); p != std::string::npos)
      hint = did_you_mean(err.substr(p + 14, err.size() - p - 15), units.all_names());
    Location at = u.at;
    at.column += unsigned(off);
    diags.error(at, "E-UNIT-UNKNOWN", "bad unit '" + u.text + "': " + err, hint);
  }
  return q;
}

void duplicate(Diagnostics& d, const Location& at, const std::string& what, const std::string& name, const Location& first) {
  std::string where = first.file ? first.file->path + ":" + std::to_string(first.line) + ":" + std::to_string(first.column) : "earlier";
  d.error(at, "E-DUPLICATE", what + " '" + name + "' is already declared at " + where, "names must be unique; rename one of them");
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

const char* head_word(Head h) {
  static const char* words[] = {"eq", "variant", "approx", "constraint", "iterate", "ode", "stochastic"};
  return words[int(h)];
}

std::string print_relations(const Model& m, const std::function<void(const RelationIR&, std::string&)>& describe) {
  std::string s;
  for (const auto& r : m.relations) {
    s += std::string(head_word(r.decl->head)) + " " + r.rel.name;
    if (!r.ok) {
      s += ": error\n";
      continue;
    }
    describe(r, s);
    s += "\n";
  }
  return s;
}

std::string quoted_head(Head h, const std::string& name) { return std::string("'") + head_word(h) + " " + name + "'"; }

std::string instance_note(const ADecl& decl) {
  const Location& at = decl.from_instance_at;
  return "in instance '" + decl.from_instance + "' at " + (at.file ? at.file->path : std::string("?")) + ":" +
         std::to_string(at.line) + ":" + std::to_string(at.column);
}

std::string print_texpr(const TExpr& e, const Model& m) {
  auto number = [](double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return std::string(buf);
  };
  auto kids = [&](const char* sep) {
    std::string s;
    for (const auto& k : e.kids) s += (s.empty() ? "" : sep) + print_texpr(k, m);
    return s;
  };
  switch (e.k) {
    case TExpr::K::Num: return number(e.value);
    case TExpr::K::Var: return "#" + std::to_string(e.var) + " " + m.img.vars[e.var].name;
    case TExpr::K::Local: return "local";
    case TExpr::K::Neg: return "(-" + print_texpr(e.kids[0], m) + ")";
    case TExpr::K::Not: return "(not " + print_texpr(e.kids[0], m) + ")";
    case TExpr::K::Binary: return "(" + print_texpr(e.kids[0], m) + " " + op_token(e.op) + " " + print_texpr(e.kids[1], m) + ")";
    case TExpr::K::Call: return std::string(func_info(e.func).name) + "(" + kids(", ") + ")";
    case TExpr::K::Piecewise: return "piecewise(" + kids("; ") + ")";
  }
  return "?";
}

}  // namespace gs::compiler::pass_util
