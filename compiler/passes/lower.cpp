// Pass `lower`: writes each checked relation into the image, its expressions in the unit-erased postfix
// form (image/expr.h) in source order, and hands every relation's diagnostics on to the model's in
// declaration order.
#include <cstdio>

#include "compiler/passes/passes.h"

namespace gs::compiler {
namespace {

void emit(const TExpr& e, Expr& out) {
  for (const auto& k : e.kids) emit(k, out);
  switch (e.k) {
    case TExpr::K::Num: out.nodes.push_back({Op::Num, 0, 0, e.value}); break;
    case TExpr::K::Var: out.nodes.push_back({Op::Var, e.var}); break;
    case TExpr::K::Local: out.nodes.push_back({Op::Local, 0}); break;
    case TExpr::K::Neg: out.nodes.push_back({Op::Neg}); break;
    case TExpr::K::Not: out.nodes.push_back({Op::Not}); break;
    case TExpr::K::Binary: out.nodes.push_back({e.op}); break;
    case TExpr::K::Call: out.nodes.push_back({Op::Call, uint32_t(e.func), uint32_t(e.kids.size())}); break;
    case TExpr::K::Piecewise: out.nodes.push_back({Op::Piecewise, 0, uint32_t(e.kids.size())}); break;
  }
}

Expr lowered(const std::optional<TExpr>& e) {
  Expr out;
  if (e) emit(*e, out);
  return out;
}

void lower_relation(const RelationIR& ir, Relation& r) {
  const ADecl& decl = *ir.decl;
  r.rhs = lowered(ir.rhs);
  switch (decl.head) {
    case Head::Constraint:
      r.role = Role::Constraint, r.kind = Kind::Inequality, r.compare = decl.cond->op, r.lhs = lowered(ir.lhs);
      return;
    case Head::Ode:
      r.role = Role::Differential, r.kind = Kind::Differential, r.lhs_var = ir.lhs_var, r.indep_var = ir.indep_var, r.order = decl.order;
      return;
    case Head::Iterate:
      r.role = Role::Identity, r.kind = Kind::Iterative, r.lhs_var = ir.lhs_var;
      r.initial = lowered(ir.initial), r.iterations = lowered(ir.count);
      return;
    case Head::Stochastic:
      r.role = Role::Stochastic, r.kind = Kind::Stochastic, r.distribution = decl.distribution, r.lhs_var = ir.lhs_var;
      r.rhs = lowered(ir.mean);
      for (const auto& p : ir.params) r.parameters.push_back(lowered(p));
      return;
    default: break;
  }
  r.lhs_var = ir.lhs_var;
  r.role = decl.head == Head::Variant ? Role::Variant : decl.head == Head::Approx ? Role::Approximation : Role::Identity;
  if (decl.variant_key) r.variant_key = decl.variant_key->name;
  r.validity = lowered(ir.validity);
  if (!r.rhs.nodes.empty() && r.rhs.nodes.back().op == Op::Piecewise) r.kind = Kind::Piecewise;
}

}  // namespace

void lower(Model& m, Diagnostics& diags) {
  for (auto& ir : m.relations) {
    if (ir.ok) {
      const uint32_t id = uint32_t(m.img.relations.size());
      Relation r = ir.rel;
      lower_relation(ir, r);
      if (ir.decl->fallback) m.fallback_refs[id] = {*ir.decl->fallback, m.img.systems[ir.system].name};
      m.relation_at[id] = ir.decl->at;
      m.relation_ids[r.name] = id;
      m.img.relations.push_back(std::move(r));
    }
    if (!ir.decl->from_instance.empty()) ir.diags.annotate_since(0, pass_util::instance_note(*ir.decl));
    diags.append(ir.diags);
    ir.diags = Diagnostics{};
  }
}

std::string print_lowered(const Model& m) {
  std::string s;
  auto postfix = [&](const Expr& e) {
    std::string t;
    for (const auto& n : e.nodes) {
      t += t.empty() ? "" : " ";
      if (n.op == Op::Num) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", n.value);
        t += buf;
      } else if (n.op == Op::Var) {
        t += "#" + std::to_string(n.index);
      } else if (n.op == Op::Local) {
        t += "local";
      } else if (n.op == Op::Call) {
        t += std::string(func_info(Func(n.index)).name) + "/" + std::to_string(n.count);
      } else if (n.op == Op::Piecewise) {
        t += "piecewise/" + std::to_string(n.count);
      } else {
        t += op_token(n.op);
      }
    }
    return t;
  };
  for (uint32_t i = 0; i < m.img.relations.size(); ++i) {
    const Relation& r = m.img.relations[i];
    s += "relation #" + std::to_string(i) + " " + r.name + " " + role_name(r.role);
    if (r.lhs_var >= 0) s += " defines #" + std::to_string(r.lhs_var);
    if (!r.lhs.empty()) s += "\n    lhs: " + postfix(r.lhs) + "\n    compare: " + op_token(r.compare);
    if (!r.validity.empty()) s += "\n    when: " + postfix(r.validity);
    if (!r.initial.empty()) s += "\n    initial: " + postfix(r.initial) + "\n    times: " + postfix(r.iterations);
    for (const auto& p : r.parameters) s += "\n    " + r.distribution + " parameter: " + postfix(p);
    if (!r.rhs.empty()) s += "\n    rhs: " + postfix(r.rhs);
    s += "\n";
  }
  return s;
}

}  // namespace gs::compiler
