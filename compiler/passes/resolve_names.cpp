// Pass `resolve_names`: every name in a relation becomes a variable id. A name is the iteration's local
// binder, a built-in math constant (a number from here on), or a variable of a system the relation's
// system uses (E-UNKNOWN-NAME, E-NOT-VISIBLE); the defined variable may not be a constant (E-CONST-LHS);
// calls name a known function with the right number of arguments (E-UNKNOWN-FUNCTION, E-ARITY) and
// quantities a known unit (E-UNIT-UNKNOWN), converted to base units. The first problem in a relation
// ends its check.
#include "compiler/builtins.h"
#include "compiler/passes/passes.h"
#include "image/suggest.h"

namespace gs::compiler {
namespace {

class Resolver {
 public:
  Resolver(const Model& m, uint32_t system, Diagnostics& d) : m_(m), system_(system), d_(d) {}
  std::string binder;  // iterative relations: the local variable's name

  std::optional<TExpr> run(const AExpr& e) {
    TExpr t;
    t.src = &e;
    switch (e.k) {
      case AExpr::K::Num: t.value = e.number; return t;
      case AExpr::K::Quantity: {
        auto q = pass_util::check_unit(AUnit{e.text, e.unit_at}, m_.units, d_);
        if (!q) return std::nullopt;
        t.value = e.number * q->scale, t.quantity = true, t.unit_dim = q->dim;
        return t;
      }
      case AExpr::K::Ref: return ref(e);
      case AExpr::K::Neg: t.k = TExpr::K::Neg; break;
      case AExpr::K::Not: t.k = TExpr::K::Not; break;
      case AExpr::K::Binary: t.k = TExpr::K::Binary, t.op = e.op; break;
      case AExpr::K::Piecewise: t.k = TExpr::K::Piecewise; break;
      case AExpr::K::Call: {
        t.k = TExpr::K::Call;
        if (!func_by_name(e.text, t.func)) {
          std::vector<std::string> names = {"exp", "log", "ln", "sqrt", "sin", "cos", "tan", "tanh", "atan", "abs",
                                            "min", "max", "floor", "ceil", "log2", "log10"};
          d_.error(e.at, "E-UNKNOWN-FUNCTION", "unknown function '" + e.text + "'", did_you_mean(e.text, names));
          return std::nullopt;
        }
        const FuncInfo& info = func_info(t.func);
        const int n = int(e.kids.size());
        if (n < info.min_args || n > info.max_args) {
          d_.error(e.at, "E-ARITY", "'" + e.text + "' takes " +
                   (info.min_args == info.max_args ? std::to_string(info.min_args) : "at least " + std::to_string(info.min_args)) +
                   " argument" + (info.min_args == 1 && info.max_args == 1 ? "" : "s") + ", not " + std::to_string(n),
                   "see the list of functions in docs/language.md, section Expressions");
          return std::nullopt;
        }
        break;
      }
    }
    for (const auto& k : e.kids) {
      auto kid = run(k);
      if (!kid) return std::nullopt;
      t.kids.push_back(std::move(*kid));
    }
    return t;
  }

  // The variable a relation defines: a declared, visible variable that is not a universal constant.
  std::optional<TExpr> defined(const AExpr& lhs, const ADecl& decl) {
    auto t = run(lhs);
    if (!t) return t;
    if (t->k == TExpr::K::Var && m_.img.vars[t->var].is_constant) {
      d_.error(lhs.at, "E-CONST-LHS", "'" + lhs.text + "' is a universal constant and cannot be defined by '" + decl.name + "'",
               "constants have fixed values; define a variable instead");
      return std::nullopt;
    }
    return t;
  }

 private:
  const Model& m_;
  uint32_t system_;
  Diagnostics& d_;

  std::optional<TExpr> ref(const AExpr& e) {
    TExpr t;
    t.src = &e;
    if (!binder.empty() && e.text == binder) {
      t.k = TExpr::K::Local;
      return t;
    }
    if (in_math_namespace(e.text)) {  // a built-in constant is a number like any literal
      auto v = math_constant(e.text);
      if (!v) {
        d_.error(e.at, "E-UNKNOWN-NAME", "unknown math constant '" + e.text + "'", did_you_mean(e.text, math_constant_names()));
        return std::nullopt;
      }
      t.value = *v;
      return t;
    }
    auto it = m_.var_ids.find(e.text);
    if (it == m_.var_ids.end()) {
      std::vector<std::string> names;
      for (const auto& [name, id] : m_.var_ids)
        if (m_.visible(system_, id)) names.push_back(name);
      d_.error(e.at, "E-UNKNOWN-NAME", "unknown name '" + e.text + "'", did_you_mean(e.text, names));
      return std::nullopt;
    }
    if (!m_.visible(system_, it->second)) {
      const std::string& system = m_.img.systems[system_].name;
      d_.error(e.at, "E-NOT-VISIBLE",
               "'" + e.text + "' is declared in system '" + m_.owner(it->second) + "', which '" + system + "' does not use",
               "add 'use " + m_.owner(it->second) + "' to system '" + system + "' if it loads earlier");
      return std::nullopt;
    }
    t.k = TExpr::K::Var, t.var = it->second;
    return t;
  }
};

AExpr name_expr(const ANameRef& n) {
  AExpr e;
  e.k = AExpr::K::Ref, e.text = n.name, e.at = e.begin = n.at;
  return e;
}

// The relation's names in the order a reader meets them; false at the first that does not resolve.
bool resolve(const Model& m, RelationIR& r) {
  const ADecl& decl = *r.decl;
  Resolver x(m, r.system, r.diags);
  auto into = [&](std::optional<TExpr>& slot, const AExpr& e) {
    slot = x.run(e);
    return slot.has_value();
  };
  switch (decl.head) {
    case Head::Constraint: return into(r.lhs, decl.cond->kids[0]) && into(r.rhs, decl.cond->kids[1]);
    case Head::Ode: {
      AExpr target = name_expr(*decl.target), indep = name_expr(*decl.indep);
      auto x_var = x.defined(target, decl);
      if (!x_var) return false;
      r.indep = x.run(indep);
      if (!r.indep) return false;
      r.lhs_var = int32_t(x_var->var), r.indep_var = int32_t(r.indep->k == TExpr::K::Var ? r.indep->var : 0);
      return into(r.rhs, *decl.rhs);
    }
    default: break;
  }
  auto lhs = x.defined(*decl.lhs, decl);
  if (!lhs) return false;
  r.lhs_var = int32_t(lhs->var);
  if (decl.head == Head::Iterate) {
    if (!into(r.initial, *decl.initial) || !into(r.count, *decl.count)) return false;
    x.binder = decl.binder;
  } else if (decl.head == Head::Stochastic) {
    for (const auto& p : decl.dist_params) {
      auto t = x.run(p);
      if (!t) return false;
      r.params.push_back(std::move(*t));
    }
    return !decl.mean || into(r.mean, *decl.mean);
  } else if (decl.validity && !into(r.validity, *decl.validity)) {
    return false;
  }
  return into(r.rhs, *decl.rhs);
}

}  // namespace

std::optional<TExpr> pass_util::resolve_name(const Model& m, uint32_t system, const AExpr& ref, Diagnostics& diags) {
  return Resolver(m, system, diags).run(ref);
}

void resolve_names(Model& m, Diagnostics&) {
  for (auto& r : m.relations)
    if (r.ok) r.ok = resolve(m, r);
}

std::string print_resolved(const Model& m) {
  return pass_util::print_relations(m, [&](const RelationIR& r, std::string& s) {
    auto show = [&](const char* what, const std::optional<TExpr>& e) {
      if (e) s += std::string("\n    ") + what + " " + pass_util::print_texpr(*e, m);
    };
    if (r.lhs_var >= 0) s += " defines #" + std::to_string(r.lhs_var) + " " + m.img.vars[size_t(r.lhs_var)].name;
    if (r.indep_var >= 0) s += " over #" + std::to_string(r.indep_var) + " " + m.img.vars[size_t(r.indep_var)].name;
    show(r.decl->head == Head::Constraint ? "left" : "lhs", r.decl->head == Head::Constraint ? r.lhs : std::nullopt);
    show("when", r.validity);
    show("initial", r.initial);
    show("times", r.count);
    for (const auto& p : r.params) s += "\n    parameter " + pass_util::print_texpr(p, m);
    show("mean", r.mean);
    show(r.decl->head == Head::Constraint ? "right" : "=", r.rhs);
  });
}

}  // namespace gs::compiler
