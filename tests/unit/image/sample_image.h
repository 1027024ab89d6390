// A small hand-built image that uses every table and every relation kind, for the format tests.
#pragma once

#include "image/image.h"

namespace gs::testing {

inline Node num(double v) { return {Op::Num, 0, 0, v}; }
inline Node var(uint32_t id) { return {Op::Var, id, 0, 0}; }
inline Node op(Op o, uint32_t count = 0, uint32_t index = 0) { return {o, index, count, 0}; }

inline Image sample_image() {
  Image img;
  img.files = {"model/00_units.gstack", "model/10_t.gstack"};
  img.file_hashes = {sha256_hex("a", 1), sha256_hex("b", 1)};
  UnitTable& u = img.units;
  u.dimension_names = {"length", "time", "currency"};
  u.units = {{"m", 1, Dim::base(0), "metre"},
             {"s", 1, Dim::base(1), "second"},
             {"USD", 1, Dim::base(2), "dollar"},
             {"h", 3600, Dim::base(1), "hour"},
             {"rt", 1, Dim::base(0).pow(Rational{1, 2}), "root metre"}};
  u.prefixes = {{"k", 1e3}, {"Ki", 1024}, {"m", 1e-3}};
  u.index();
  img.systems = {{"units", "Units", {}, 0}, {"t", "Test system", {0}, 1}};
  img.refs = {{"r1", "A paper", "paper", "https://example.org", "Table 1", 2024, {1, 3, 5}},
              {"r2", "A datasheet", "datasheet", "", "", 0, {1, 4, 5}}};
  auto variable = [&](std::string name, Dim dim, std::string unit) {
    Variable v;
    v.name = std::move(name), v.description = "about " + v.name, v.unit = std::move(unit), v.dim = std::move(dim);
    v.system = 1, v.span = {1, uint32_t(10 + img.vars.size()), 5};
    img.vars.push_back(v);
    return uint32_t(img.vars.size() - 1);
  };
  const uint32_t x = variable("t.x", Dim::base(0), "m");
  const uint32_t t = variable("t.time", Dim::base(1), "h");
  const uint32_t v = variable("t.v", Dim::base(0) / Dim::base(1), "m/s");
  const uint32_t c = variable("t.c", Dim{}, "1");
  const uint32_t k = variable("t.k", Dim::base(0).pow(Rational{1, 2}), "rt");
  img.vars[t].unit_scale = 3600;
  img.vars[x].refs = {0, 1};
  img.vars[x].doc = "Doc line one.\nDoc line two.";
  img.vars[x].symbol = "η_x";  // a symbol with a multi-byte character survives the round trip
  img.vars[x].assume = {Sign::Positive, false, false, true, 0.5, 2.5};
  img.vars[c].assume = {Sign::Nonnegative, true, true, false, 0, 0};
  img.vars[c].is_constant = true, img.vars[c].value = 6.02214076e23;

  auto relation = [&](std::string name, Role role, Kind kind) {
    Relation r;
    r.name = "t." + name, r.description = name + " relation", r.system = 1, r.role = role, r.kind = kind;
    r.span = {1, uint32_t(30 + img.relations.size()), 1};
    r.refs = {1};
    img.relations.push_back(r);
    return &img.relations.back();
  };
  Relation* r = relation("speed", Role::Identity, Kind::Algebraic);
  r->lhs_var = int32_t(v), r->rhs.nodes = {var(x), var(t), op(Op::Div)};
  r = relation("speed_dense", Role::Variant, Kind::Algebraic);
  r->variant_key = "dense", r->lhs_var = int32_t(v), r->rhs.nodes = {var(x), num(2), op(Op::Mul), var(t), op(Op::Div)};
  r = relation("approx", Role::Approximation, Kind::Piecewise);
  r->lhs_var = int32_t(x);
  r->validity.nodes = {var(v), num(1), op(Op::Lt), var(c), num(0), op(Op::Ge), op(Op::And), op(Op::Not)};
  r->rhs.nodes = {num(0), var(c), num(1), op(Op::Eq), var(v), var(t), op(Op::Mul), op(Op::Piecewise, 3)};
  r = relation("bounded", Role::Constraint, Kind::Inequality);
  r->compare = Op::Le, r->lhs.nodes = {var(x), op(Op::Neg)}, r->rhs.nodes = {num(-1e300)};
  r = relation("iterate", Role::Identity, Kind::Iterative);
  r->lhs_var = int32_t(c);
  r->rhs.nodes = {op(Op::Local), num(2), op(Op::Local), op(Op::Div), op(Op::Add), num(2), op(Op::Div)};
  r->initial.nodes = {num(1)}, r->iterations.nodes = {num(6)};
  r = relation("ode", Role::Differential, Kind::Differential);
  r->lhs_var = int32_t(x), r->indep_var = int32_t(t), r->order = 2, r->rhs.nodes = {var(v), var(t), op(Op::Div)};
  r = relation("stoch", Role::Stochastic, Kind::Stochastic);
  r->lhs_var = int32_t(k), r->distribution = "lognormal";
  r->parameters = {Expr{{var(x), op(Op::Call, 1, uint32_t(Func::Sqrt))}}, Expr{{num(0.25)}}};
  r->rhs.nodes = {var(x), num(1), op(Op::Call, 2, uint32_t(Func::Max)), op(Op::Call, 1, uint32_t(Func::Sqrt))};
  r = relation("approx_far", Role::Approximation, Kind::Algebraic);  // the declared fallback of "approx"
  r->lhs_var = int32_t(x), r->validity.nodes = {var(v), num(1), op(Op::Ge)}, r->rhs.nodes = {var(v), var(t), op(Op::Mul)};
  img.relations[2].fallback = int32_t(img.relations.size() - 1);
  build_adjacency(img);
  return img;
}

}  // namespace gs::testing
