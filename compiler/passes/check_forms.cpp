// Pass `check_forms`: each relation has the form its head needs. `eq`, `variant` and `approx` are
// 'variable = expression', `iterate` a map, `ode` a derivative, `stochastic` a distribution and
// `constraint` an inequality; only variants take a key, only approximations a validity and a fallback;
// the left side of a value relation is a single name.
#include "compiler/passes/passes.h"

namespace gs::compiler {
namespace {

using pass_util::quoted_head;

bool check_form(const ADecl& decl, Diagnostics& d_) {
    using B = ADecl::Body;
    const B expected = decl.head == Head::Constraint ? B::Condition : decl.head == Head::Iterate ? B::Iterate
                     : decl.head == Head::Ode ? B::Differential : decl.head == Head::Stochastic ? B::Stochastic : B::Equation;
    if (decl.body != expected) {
      static const char* forms[] = {"'variable = expression'", "'variable = map over k from initial times n'",
                                    "'derivative(variable, variable) = expression'", "'variable ~ distribution(parameters)'",
                                    "an inequality such as 'a <= b'"};
      d_.error(decl.keyword_at, "E-RELATION-FORM",
               quoted_head(decl.head, decl.name) + " must have the form " + forms[int(expected)],
               "each head has one form; see docs/language.md, section Relations");
      return false;
    }
    bool ok = true;
    if (decl.head == Head::Variant && !decl.variant_key) {
      d_.error(decl.at, "E-VARIANT-KEY", "variant '" + decl.name + "' has no key",
               "write 'variant " + decl.name + " [key]: ...' so scenarios can select it");
      ok = false;
    }
    if (decl.variant_key && decl.variant_key->name.find_first_of(" \t") != std::string::npos) {
      d_.error(decl.variant_key->at, "E-VARIANT-KEY", "variant key '" + decl.variant_key->name + "' contains a space",
               "a key is one word of letters, digits and underscores, e.g. [1f1b]");
      ok = false;
    }
    if (decl.head != Head::Variant && decl.variant_key) {
      d_.error(decl.variant_key->at, "E-VARIANT-KEY", "only variant relations take a key, and this is " + quoted_head(decl.head, decl.name),
               "write 'variant " + decl.name + " [key]: ...', or drop the key");
      ok = false;
    }
    if (decl.head == Head::Approx && !decl.validity) {
      d_.error(decl.at, "E-VALIDITY", "approximation '" + decl.name + "' needs a validity condition",
               "write 'approx " + decl.name + " when <condition>: ...'");
      ok = false;
    }
    if (decl.head != Head::Approx && decl.validity) {
      d_.error(decl.validity->at, "E-VALIDITY", "only approx relations take a 'when' condition, and this is " + quoted_head(decl.head, decl.name));
      ok = false;
    }
    if (decl.head != Head::Approx && decl.fallback) {
      d_.error(decl.fallback->at, "E-FALLBACK", "only approx relations take a fallback, and this is " + quoted_head(decl.head, decl.name),
               "an identity or variant holds wherever it is selected; drop 'fallback " + decl.fallback->name + "'");
      ok = false;
    }
    return ok;
  }

// The parts of the form that depend on the head: a constraint compares, a value relation names the
// variable it defines.
bool check_sides(const ADecl& decl, Diagnostics& d) {
  if (decl.head == Head::Constraint) {
    const AExpr& c = *decl.cond;
    const bool inequality = c.k == AExpr::K::Binary && (c.op == Op::Lt || c.op == Op::Le || c.op == Op::Gt || c.op == Op::Ge);
    if (!inequality)
      d.error(c.at, "E-RELATION-FORM", "constraint '" + decl.name + "' must be an inequality (<, <=, > or >=)",
              "a constraint bounds values; an equality defines one and belongs in 'eq'");
    return inequality;
  }
  if (decl.head == Head::Ode || decl.lhs->k == AExpr::K::Ref) return true;
  d.error(decl.lhs->at, "E-LHS-NOT-VARIABLE", "the left side of '" + decl.name + "' must be a single variable",
          "a value relation defines one variable; write the expression on the right, or use a constraint");
  return false;
}

}  // namespace

void check_forms(Model& m, Diagnostics&) {
  for (auto& r : m.relations)
    if (r.ok) r.ok = check_form(*r.decl, r.diags) && check_sides(*r.decl, r.diags);
}

std::string print_forms(const Model& m) {
  static const char* bodies[] = {"equation", "iterate", "differential", "stochastic", "condition"};
  std::string s;
  for (const auto& r : m.relations) {
    s += std::string(pass_util::head_word(r.decl->head)) + " " + r.rel.name + ": " + bodies[int(r.decl->body)];
    if (r.decl->variant_key) s += " [" + r.decl->variant_key->name + "]";
    if (r.decl->validity) s += " when ...";
    if (r.decl->fallback) s += " fallback " + r.decl->fallback->name;
    s += r.ok ? "\n" : " error\n";
  }
  return s;
}

}  // namespace gs::compiler
