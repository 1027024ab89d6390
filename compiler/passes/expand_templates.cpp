// Pass `expand_templates`: `template NAME(params) { vars and relations }` plus `instance LOCAL = NAME(param:
// arg, ...)` stamp out ordinary declarations before any name is resolved or unit checked, so the image,
// the runtime and `trace` see only plain variables and relations.
#include <algorithm>
#include <map>
#include <set>

#include "compiler/passes/passes.h"
#include "image/suggest.h"

namespace gs::compiler {
namespace {

// The arguments of one instance, by parameter name.
struct Binding {
  const ADecl& instance;
  std::map<std::string, const ATemplateArg*> args;
};

class Expander {
 public:
  Expander(const Binding& b, Diagnostics& d) : b_(b), d_(d) {}
  bool ok = true;

  // A dotted name whose first part is a parameter bound to a name: `g.flops` with g: kernel.gemm.qkv
  // becomes kernel.gemm.qkv.flops.
  std::string name(const std::string& text, const Location& at) {
    const size_t dot = text.find('.');
    const std::string head = text.substr(0, dot);
    auto it = b_.args.find(head);
    if (it == b_.args.end()) return text;
    const ATemplateArg& arg = *it->second;
    if (!arg.value || arg.value->k != AExpr::K::Ref) {
      if (!misused_.insert(head).second) return text;  // said once per parameter
      fail(at, "parameter '" + head + "' is used as a name here, but instance '" + b_.instance.name + "' gives it " +
               (arg.text ? "a string" : "an expression"),
           "pass a variable name (or a name prefix) for '" + head + "'");
      return text;
    }
    return dot == std::string::npos ? arg.value->text : arg.value->text + text.substr(dot);
  }

  // `{what}` in a description becomes the string argument `what`.
  std::string text(std::string s) {
    for (const auto& [param, arg] : b_.args) {
      if (!arg->text) continue;
      const std::string key = "{" + param + "}";
      for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + arg->text->size())) s.replace(p, key.size(), *arg->text);
    }
    return s;
  }

  void expr(AExpr& e) {
    if (e.k == AExpr::K::Ref) {
      auto it = b_.args.find(e.text);
      if (it != b_.args.end()) {  // a whole parameter: the argument's expression takes its place
        if (!it->second->value) {
          if (!misused_.insert(e.text).second) return;
          fail(e.at, "parameter '" + e.text + "' is used as a value here, but instance '" + b_.instance.name + "' gives it a string",
               "pass a variable or an expression for '" + e.text + "'");
          return;
        }
        e = *it->second->value;
        return;
      }
      e.text = name(e.text, e.at);
      return;
    }
    for (auto& k : e.kids) expr(k);
  }

  ADecl member(const ADecl& m) {
    ADecl d = m;
    d.from_instance = b_.instance.name, d.from_instance_at = b_.instance.at;
    d.description = text(d.description);
    d.doc = text(d.doc);
    if (d.k == ADecl::K::Var) {
      d.name = name(d.name, d.at);
      return d;
    }
    d.name = b_.instance.name + "_" + d.name;
    for (auto* e : {&d.lhs, &d.rhs, &d.cond, &d.validity, &d.initial, &d.count, &d.mean})
      if (*e) expr(**e);
    for (auto& p : d.dist_params) expr(p);
    // A fallback named without a system is a sibling member, renamed like this one.
    if (d.fallback && d.fallback->name.find('.') == std::string::npos) d.fallback->name = b_.instance.name + "_" + d.fallback->name;
    for (auto* n : {&d.target, &d.indep})
      if (*n) (*n)->name = name((*n)->name, (*n)->at);
    return d;
  }

 private:
  void fail(const Location& at, const std::string& message, const std::string& hint) {
    d_.error(at, "E-TEMPLATE", message, hint);
    ok = false;
  }
  const Binding& b_;
  Diagnostics& d_;
  std::set<std::string> misused_;  // parameters already reported as given the wrong kind of argument
};

std::optional<Binding> bind(const ADecl& instance, const ADecl& tmpl, Diagnostics& d) {
  Binding b{instance, {}};
  std::vector<std::string> params;
  for (const auto& p : tmpl.params) params.push_back(p.name);
  bool ok = true;
  for (const auto& arg : instance.args) {
    if (std::find(params.begin(), params.end(), arg.param.name) == params.end()) {
      d.error(arg.param.at, "E-TEMPLATE", "template '" + tmpl.name + "' has no parameter '" + arg.param.name + "'",
              did_you_mean(arg.param.name, params));
      ok = false;
    } else if (!b.args.emplace(arg.param.name, &arg).second) {
      d.error(arg.param.at, "E-TEMPLATE", "parameter '" + arg.param.name + "' is given twice", "give each parameter once");
      ok = false;
    }
  }
  for (const auto& p : params)
    if (ok && !b.args.count(p)) {
      d.error(instance.at, "E-TEMPLATE", "instance '" + instance.name + "' gives no value for parameter '" + p + "' of template '" + tmpl.name + "'",
              "add '" + p + ": ...' to the arguments");
      ok = false;
    }
  if (!ok) return std::nullopt;
  return b;
}

void expand_file(AFile& f, Diagnostics& d) {
  std::map<std::string, const ADecl*> templates;
  for (const auto& decl : f.decls) {
    if (decl.k != ADecl::K::Template) continue;
    if (!templates.emplace(decl.name, &decl).second)
      d.error(decl.at, "E-DUPLICATE", "template '" + decl.name + "' is already declared in this file", "names must be unique; rename one of them");
    std::set<std::string> seen;
    for (const auto& p : decl.params)
      if (!seen.insert(p.name).second) d.error(p.at, "E-TEMPLATE", "template '" + decl.name + "' names parameter '" + p.name + "' twice");
  }
  // Declarations other than templates and instances move to `out`: copying them would hold the file's
  // syntax tree twice (about 2 KB per declaration; bench/scaling.sh measures the front end's peak heap).
  // Templates stay where `templates` points, instances where their bindings point.
  std::vector<ADecl> out;
  out.reserve(f.decls.size());
  for (auto& decl : f.decls) {
    if (decl.k == ADecl::K::Template) continue;
    if (decl.k != ADecl::K::Instance) {
      out.push_back(std::move(decl));
      continue;
    }
    auto it = templates.find(decl.template_name->name);
    if (it == templates.end()) {
      std::vector<std::string> names;
      for (const auto& [n, t] : templates) names.push_back(n);
      d.error(decl.template_name->at, "E-TEMPLATE", "unknown template '" + decl.template_name->name + "'",
              names.empty() ? "declare it with 'template NAME(params) { ... }' in this file" : did_you_mean(decl.template_name->name, names));
      continue;
    }
    auto binding = bind(decl, *it->second, d);
    if (!binding) continue;
    Expander x(*binding, d);
    for (const auto& m : it->second->members) {
      ADecl expanded = x.member(m);
      if (x.ok) out.push_back(std::move(expanded));
    }
  }
  // The templates are gone now; what they stamped out stays (the instances' arguments point into `f`).
  f.decls = std::move(out);
}

}  // namespace

void expand_templates(std::vector<AFile>& files, Diagnostics& diags) {
  for (auto& f : files) expand_file(f, diags);
}

}  // namespace gs::compiler
