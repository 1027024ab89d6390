#include "runtime/strategy/search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "image/suggest.h"
#include "runtime/format.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"
#include "runtime/uq/cone_builder.h"
#include "runtime/uq/parallel.h"
#include "runtime/uq/plan.h"

namespace gs::strategy {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// Values of problem quantities, knobs and derived knobs live in one slot array; products index it.
struct Term {
  size_t slot = kNone;  // kNone: a number
  double number = 1;
};
using SlotProduct = std::vector<Term>;

double eval(const SlotProduct& p, const std::vector<double>& slots) {
  double x = 1;
  for (const auto& t : p) x *= t.slot == kNone ? t.number : slots[t.slot];
  return x;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

bool whole(double x) { return std::isfinite(x) && x >= 1 && std::fabs(x - std::round(x)) < 1e-9 * std::max(1.0, x); }

bool divides(double d, double n) { return whole(d) && n >= d && whole(n / d); }

struct CompiledRule {
  const Rule* rule;
  SlotProduct a, b;
  std::vector<std::pair<size_t, double>> only_if_above;
};

struct Layout {
  std::map<std::string, size_t> slot_of;  // name -> slot
  size_t n_problem = 0, n_knobs = 0, n_derived = 0;
  SlotProduct compile(const Product& p) const {
    SlotProduct out;
    for (const auto& f : p) out.push_back(f.name.empty() ? Term{kNone, f.number} : Term{slot_of.at(f.name), 1});
    return out;
  }
};

std::vector<double> generate(const Knob& k, double bound) {
  std::vector<double> v;
  switch (k.generator) {
    case Generator::List: return k.list;
    case Generator::PowersOfTwo:
      for (double x = 1; x <= bound; x *= 2) v.push_back(x);
      break;
    case Generator::Range:
      for (double x = 1; x <= bound; ++x) v.push_back(x);
      break;
    case Generator::Divisors:
      for (double x = 1; x <= bound; ++x)
        if (whole(bound / x)) v.push_back(x);
      break;
  }
  return v;
}

// "NAME=VALUE" against the space: the slot it pins (a knob or derived knob) and the value.
std::pair<size_t, double> parse_fix(const Registry& reg, const StrategySpace& space, const Layout& layout, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw PresetError("bad --fix '" + text + "': expected KNOB=VALUE (for example tp=8 or par.tp=8)");
  const std::string name = text.substr(0, eq), value = text.substr(eq + 1);
  std::vector<std::string> names;
  const Knob* knob = nullptr;
  std::string slot_name;
  for (const auto& k : space.knobs) {
    names.push_back(k.name);
    if (k.name == name || reg.var(k.var).name == name) knob = &k, slot_name = k.name;
  }
  for (const auto& d : space.derived) {
    names.push_back(d.name);
    if (d.name == name || reg.var(d.var).name == name) slot_name = d.name;
  }
  if (slot_name.empty()) {
    std::string hint = did_you_mean(name, names);
    throw PresetError("bad --fix '" + text + "': '" + name + "' is not a knob of the search; knobs are " + join(names) +
                      (hint.empty() ? "" : "; " + hint));
  }
  if (knob)
    for (size_t i = 0; i < knob->labels.size(); ++i)
      if (knob->labels[i] == value) return {layout.slot_of.at(slot_name), knob->list[i]};
  char* end = nullptr;
  const double x = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0' || !std::isfinite(x)) {
    std::string expected = knob && !knob->labels.empty() ? "a number or one of " + join(knob->labels) : "a number";
    throw PresetError("bad --fix '" + text + "': '" + value + "' is not " + expected);
  }
  if (x < 0 || x != std::round(x)) throw PresetError("bad --fix '" + text + "': " + name + " takes whole numbers");
  return {layout.slot_of.at(slot_name), x};
}

bool satisfied(Op compare, double lhs, double rhs) {
  const double tol = 1e-9 * std::max(std::fabs(lhs), std::fabs(rhs));
  switch (compare) {
    case Op::Lt: return lhs < rhs;
    case Op::Le: return lhs <= rhs + tol;
    case Op::Gt: return lhs > rhs;
    case Op::Ge: return lhs + tol >= rhs;
    default: return std::fabs(lhs - rhs) <= tol;
  }
}

// Candidates ranked best first: better objective, then earlier enumeration.
struct Better {
  bool maximize;
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.objective != b.objective) return maximize ? a.objective > b.objective : a.objective < b.objective;
    return a.index < b.index;
  }
};

void keep_top(std::vector<Candidate>& top, Candidate c, size_t k, const Better& better) {
  if (k == 0) return;
  if (top.size() == k && !better(c, top.back())) return;
  top.insert(std::upper_bound(top.begin(), top.end(), c, better), std::move(c));
  if (top.size() > k) top.pop_back();
}

}  // namespace

std::string knob_value_text(const StrategySpace& space, size_t knob, double value) {
  if (knob < space.knobs.size())
    for (size_t i = 0; i < space.knobs[knob].labels.size(); ++i)
      if (space.knobs[knob].list[i] == value) return space.knobs[knob].labels[i];
  return format_number(value);
}

StrategyResult search_strategies(const Registry& reg, const ScenarioPoint& scenario, const StrategySpace& space,
                                 const StrategyRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  StrategyResult result;
  const std::string objective_name =
      !request.objective.empty() ? request.objective
      : !space.default_objective.empty() ? space.default_objective
      : space.objectives.empty() ? std::string() : space.objectives.front().name;
  const Objective* objective = space.objective(objective_name);
  if (!objective) {
    std::vector<std::string> names;
    for (const auto& o : space.objectives) names.push_back(o.name);
    throw PresetError("unknown objective '" + objective_name + "'; use " + join(names));
  }

  // ---- stated limits: assign their variables and check their constraints after the space's own
  ScenarioPoint limited = scenario;
  std::vector<uint32_t> constraints = space.constraints;
  for (const auto& [name, text] : request.limits) {
    const Limit* limit = space.limit(name);
    if (!limit) {
      std::vector<std::string> names;
      for (const auto& l : space.limits) names.push_back(l.name);
      throw PresetError("unknown limit '" + name + "' for the search space " + space.path + "; " +
                        (names.empty() ? std::string("it states no limits") : "its limits are " + join(names)));
    }
    const double value = parse_quantity(reg, limit->var, text);
    if (!(value > 0)) throw PresetError("limit " + name + " = '" + text + "' must be positive");
    limited.assignments[limit->var] = value;
    constraints.push_back(limit->constraint);
    result.limits[name] = value;
  }
  for (const auto& limit : space.limits)  // a limit the scenario itself states is checked too
    if (!request.limits.count(limit.name))
      if (auto it = scenario.assignments.find(limit.var); it != scenario.assignments.end()) {
        constraints.push_back(limit.constraint);
        result.limits[limit.name] = it->second;
      }
  result.objective = objective->name, result.objective_var = objective->var, result.maximize = objective->maximize;

  // ---- the problem the scenario fixes
  Layout layout;
  std::vector<double> slots;
  {
    // The quantities are counts (GPUs, layers, heads, batch), which the reference interpreter's doubles
    // give exactly at a fifth of the GiNaC resolver's cost; the resolver decides any quantity whose cone
    // leaves an input missing or gives no finite value (a dense model has no expert count).
    std::optional<Resolver> resolver;
    for (const auto& q : space.problem) {
      std::optional<double> v = interpreted_value(reg, scenario.assignments, scenario.variants, q.var);
      if (!v) {
        if (!resolver) resolver.emplace(reg, scenario.assignments, scenario.variants);
        v = resolver->resolve(q.var).number;
      }
      if (!v && q.has_fallback) v = q.fallback;
      if (!v || !std::isfinite(*v))
        throw PresetError("the scenario does not determine " + reg.var(q.var).name + " (" + q.name +
                          "), which the search needs; assign it in a preset or with --assign");
      layout.slot_of[q.name] = slots.size();
      slots.push_back(*v);
      result.problem[q.name] = *v;
    }
  }
  layout.n_problem = slots.size();
  for (const auto& k : space.knobs) layout.slot_of[k.name] = layout.n_problem + layout.n_knobs++, result.knob_names.push_back(k.name);
  for (const auto& d : space.derived)
    layout.slot_of[d.name] = layout.n_problem + layout.n_knobs + layout.n_derived++, result.knob_names.push_back(d.name);
  slots.resize(layout.n_problem + layout.n_knobs + layout.n_derived, 0);

  // ---- candidate values of each knob, pins applied
  std::map<size_t, double> pinned;
  for (const auto& f : request.fixes) {
    auto [slot, value] = parse_fix(reg, space, layout, f);
    pinned[slot] = value;
  }
  std::vector<std::vector<double>> values;
  for (size_t i = 0; i < space.knobs.size(); ++i) {
    const Knob& k = space.knobs[i];
    for (const auto& f : k.bound)
      if (!f.name.empty() && layout.slot_of.at(f.name) >= layout.n_problem)
        throw PresetError(space.path + ": knob " + k.name + " bounds its values by another knob; bounds may name only problem quantities");
    const size_t slot = layout.n_problem + i;
    values.push_back(pinned.count(slot) ? std::vector<double>{pinned[slot]} : generate(k, eval(layout.compile(k.bound), slots)));
  }
  std::vector<SlotProduct> num, den;
  for (const auto& d : space.derived) num.push_back(layout.compile(d.numerator)), den.push_back(layout.compile(d.denominator));
  std::vector<CompiledRule> rules;
  for (const auto& r : space.rules) {
    CompiledRule c{&r, layout.compile(r.a), layout.compile(r.b), {}};
    for (const auto& [name, above] : r.only_if_above) c.only_if_above.emplace_back(layout.slot_of.at(name), above);
    rules.push_back(std::move(c));
  }

  // Rejections in checking order: derived-knob rules, then rules, then constraints, then undefined values.
  for (const auto& d : space.derived) result.rejections.push_back({d.rule, "rule", d.name + " = " + d.description + " must be a whole number", 0});
  const size_t fix_rejection = result.rejections.size();
  result.rejections.push_back({"fixed", "rule", "a pinned derived knob (--fix) comes out different", 0});
  const size_t first_rule = result.rejections.size();
  for (const auto& r : space.rules) result.rejections.push_back({r.name, "rule", r.description, 0});
  const size_t first_constraint = result.rejections.size();
  for (uint32_t c : constraints) result.rejections.push_back({reg.relation(c).name, "constraint", reg.relation(c).description, 0});
  const size_t undefined = result.rejections.size();
  result.rejections.push_back({"undefined", "undefined", "the model gives no finite value for the objective or a constraint", 0});

  // ---- enumerate (odometer, last knob fastest) and filter by the rules
  std::vector<double> passing;  // rows of knob and derived values
  std::vector<uint64_t> passing_index;
  const size_t width = layout.n_knobs + layout.n_derived;
  std::vector<size_t> pos(space.knobs.size(), 0);
  bool empty_axis = false;
  for (const auto& v : values) empty_axis |= v.empty();
  for (uint64_t index = 0; !empty_axis; ++index) {
    ++result.enumerated;
    for (size_t i = 0; i < pos.size(); ++i) slots[layout.n_problem + i] = values[i][pos[i]];
    size_t failed = kNone;
    for (size_t d = 0; d < space.derived.size() && failed == kNone; ++d) {
      const double q = eval(num[d], slots) / eval(den[d], slots);
      slots[layout.n_problem + layout.n_knobs + d] = q;
      if (!whole(q)) failed = d;
      else if (auto it = pinned.find(layout.n_problem + layout.n_knobs + d); it != pinned.end() && it->second != std::round(q))
        failed = fix_rejection;
    }
    for (size_t r = 0; r < rules.size() && failed == kNone; ++r) {
      const CompiledRule& c = rules[r];
      bool applies = true;
      for (const auto& [slot, above] : c.only_if_above) applies &= slots[slot] > above;
      if (!applies) continue;
      const double a = eval(c.a, slots), b = eval(c.b, slots);
      bool ok = false;
      if (c.rule->kind == RuleKind::AtMost) {
        ok = a <= b;
      } else {
        for (double off : c.rule->dividend_offsets) ok |= divides(a, b + off);
        if (c.rule->or_reverse) ok |= divides(b, a);
      }
      if (!ok) failed = first_rule + r;
    }
    if (failed != kNone) {
      ++result.rejections[failed].count;
    } else {
      for (size_t i = 0; i < width; ++i) passing.push_back(std::round(slots[layout.n_problem + i]));
      passing_index.push_back(index);
    }
    size_t i = pos.size();
    while (i > 0 && ++pos[i - 1] == values[i - 1].size()) pos[--i] = 0;
    if (i == 0) break;
  }
  const size_t n_rows = passing_index.size();
  result.evaluated = n_rows;

  // ---- one cone: objective, report columns and both sides of each constraint, knobs as inputs
  ScenarioPoint s = limited;
  result.variants = space.variants;
  for (const auto& k : space.knobs) result.variants.insert(k.variants.begin(), k.variants.end());
  for (const auto& [var, key] : result.variants) {
    s.variants[var] = key;
    s.assignments.erase(var);  // the variant defines the selector now: a stated value would hide the knob
  }
  std::vector<uint32_t> targets{objective->var}, vary;
  for (const auto& c : space.report) targets.push_back(c.var);
  for (uint32_t c : constraints)
    for (const Expr* e : {&reg.relation(c).lhs, &reg.relation(c).rhs})
      for (uint32_t v : expr_variables(*e)) targets.push_back(v);
  for (const auto& k : space.knobs) vary.push_back(k.var);
  for (const auto& d : space.derived) vary.push_back(d.var);
  Resolver resolver(reg, s.assignments, s.variants);
  ConeBuild build = build_cone(reg, resolver, s.assignments, targets, vary, true);
  if (!build.missing.empty()) throw PresetError(missing_inputs_message(reg, build.missing));
  const size_t n_targets = build.program.outputs.size();
  uint32_t next_id = uint32_t(reg.var_count());
  for (const auto& step : build.program.steps) next_id = std::max(next_id, step.var + 1);
  for (uint32_t c : constraints)
    for (const Expr* e : {&reg.relation(c).lhs, &reg.relation(c).rhs}) {
      build.program.steps.push_back({next_id, *e});
      build.program.outputs.push_back(next_id++);
    }
  std::vector<size_t> column(width, kNone);
  for (size_t i = 0; i < width; ++i) {
    auto it = std::find(build.program.inputs.begin(), build.program.inputs.end(), vary[i]);
    if (it != build.program.inputs.end()) column[i] = size_t(it - build.program.inputs.begin());
  }
  // The Plan layer's evaluator for this many rows: a few dozen candidates (validate's search over a
  // row's unstated settings) are interpreted without loading LLVM; a full space is compiled.
  const CompiledCone cone = compile_cone(build.program, choose_evaluator(n_rows));
  result.evaluator = cone.evaluator;
  result.compile_ms = cone.compile_ms;

  // ---- evaluate, check constraints, keep the best per chunk, merge
  const Better better{objective->maximize};
  const size_t n_chunks = (n_rows + kChunkRows - 1) / kChunkRows;
  struct ChunkResult {
    std::vector<Candidate> top;
    std::vector<uint64_t> rejected;
    uint64_t feasible = 0;
  };
  std::vector<ChunkResult> chunks(n_chunks);
  const size_t n_in = cone.n_inputs, n_out = cone.n_outputs, n_rej = result.rejections.size();
  const auto t_eval = std::chrono::steady_clock::now();
  parallel_evaluate(
      cone, n_rows, request.threads ? request.threads : default_threads(),
      [&](RowBlock& b) {
        for (size_t r = 0; r < b.rows; ++r) {
          double* row = b.inputs + r * n_in;
          std::copy(build.base.begin(), build.base.end(), row);
          const double* knobs = passing.data() + (b.first_row + r) * width;
          for (size_t i = 0; i < width; ++i)
            if (column[i] != kNone) row[column[i]] = knobs[i];
        }
      },
      [&](const RowBlock& b) {
        ChunkResult& cr = chunks[b.chunk];
        cr.rejected.assign(n_rej, 0);
        for (size_t r = 0; r < b.rows; ++r) {
          const double* y = b.outputs + r * n_out;
          size_t failed = kNone;
          for (size_t c = 0; c < constraints.size() && failed == kNone; ++c) {
            const double lhs = y[n_targets + 2 * c], rhs = y[n_targets + 2 * c + 1];
            if (!std::isfinite(lhs) || !std::isfinite(rhs)) failed = undefined;
            else if (!satisfied(reg.relation(constraints[c]).compare, lhs, rhs)) failed = first_constraint + c;
          }
          if (failed == kNone && !std::isfinite(y[0])) failed = undefined;
          if (failed != kNone) {
            ++cr.rejected[failed];
            continue;
          }
          ++cr.feasible;
          const size_t row = b.first_row + r;
          Candidate c;
          c.index = passing_index[row];
          c.objective = y[0];
          if (request.top == 0 || (cr.top.size() == request.top && !better(c, cr.top.back()))) continue;
          c.knobs.assign(passing.begin() + long(row * width), passing.begin() + long((row + 1) * width));
          c.report.assign(y + 1, y + 1 + space.report.size());
          keep_top(cr.top, std::move(c), request.top, better);
        }
      });
  result.evaluate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_eval).count();
  for (auto& cr : chunks) {
    result.feasible += cr.feasible;
    for (size_t i = 0; i < cr.rejected.size(); ++i) result.rejections[i].count += cr.rejected[i];
    for (auto& c : cr.top) keep_top(result.ranked, std::move(c), request.top, better);
  }
  result.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace gs::strategy
