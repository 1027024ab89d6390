#include "runtime/uq/cone_builder.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gs {
namespace {

class Builder {
 public:
  Builder(const Registry& reg, Resolver& res, const std::map<uint32_t, double>& assignments, const std::vector<uint32_t>& vary,
          bool only_vary_inputs)
      : reg_(reg), res_(res), assignments_(assignments), vary_(vary.begin(), vary.end()), only_vary_(only_vary_inputs),
        next_temp_(uint32_t(reg.var_count())) {}

  ConeBuild run(const std::vector<uint32_t>& targets) {
    state_.assign(reg_.var_count(), 0);
    for (uint32_t t : targets) visit(t);
    out_.program.outputs = targets;
    std::sort(out_.missing.begin(), out_.missing.end());
    return std::move(out_);
  }

 private:
  const Registry& reg_;
  Resolver& res_;
  const std::map<uint32_t, double>& assignments_;
  std::set<uint32_t> vary_;
  bool only_vary_;
  uint32_t next_temp_;  // ids past the registry's for the intermediate values of unfolded iterations
  std::vector<uint8_t> state_;  // 0 unvisited, 1 on the stack, 2 done
  ConeBuild out_;

  void input(uint32_t v) {
    auto it = assignments_.find(v);
    out_.program.inputs.push_back(v);
    out_.base.push_back(it == assignments_.end() ? NAN : it->second);
  }

  // A variable whose step waits for the variables it reads: `children` are visited in order, then the step
  // is emitted. For a relation with declared fallbacks the children are each member's value dependencies
  // followed by its validity's variables, in chain order, as the fallback step reads them.
  struct Frame {
    uint32_t var;
    uint32_t relation;
    std::vector<uint32_t> children;
    size_t next = 0;
  };

  // Depth-first, post-order: a step is emitted after every step it reads. The stack is explicit, so a
  // cone as deep as the model is long (a chain of 10^5 relations) needs no deep call stack.
  void visit(uint32_t target) {
    std::vector<Frame> stack;
    enter(target, stack);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children.size()) {
        enter(top.children[top.next++], stack);  // may grow the stack: `top` is not used after this
        continue;
      }
      const uint32_t v = top.var, rel = top.relation;
      stack.pop_back();
      if (reg_.relation(rel).fallback >= 0) emit_with_fallbacks(v, rel);
      else emit(v, reg_.relation(rel));
      state_[v] = 2;
    }
  }

  // Starts visiting `v`: an input, a constant or a missing root is done at once; a variable computed by a
  // relation gets a frame on `stack`.
  void enter(uint32_t v, std::vector<Frame>& stack) {
    if (state_[v] == 2) return;
    if (state_[v] == 1) throw ResolveError("cannot compile a cone: the selected relations form a cycle through " + reg_.var(v).name);
    state_[v] = 1;
    const Variable& var = reg_.var(v);
    if (vary_.count(v) || (assignments_.count(v) && !only_vary_)) {
      input(v);
    } else if (var.is_constant || assignments_.count(v)) {
      const double value = var.is_constant ? var.value : assignments_.at(v);
      out_.program.steps.push_back({v, Expr{{Node{Op::Num, 0, 0, value}}}});
    } else if (int32_t rel = res_.selection(v).relation; rel >= 0) {
      stack.push_back({v, uint32_t(rel), reads(uint32_t(rel)), 0});
      return;
    } else {
      out_.missing.push_back(v);
    }
    state_[v] = 2;
  }

  // The variables the step for relation `rel` reads, in the order they are visited.
  std::vector<uint32_t> reads(uint32_t rel) {
    if (reg_.relation(rel).fallback < 0) return res_.value_deps(rel);
    std::vector<uint32_t> out;
    const std::vector<uint32_t> chain = fallback_chain(rel);
    for (size_t i = 0; i < chain.size(); ++i) {
      const auto& deps = res_.value_deps(chain[i]);
      out.insert(out.end(), deps.begin(), deps.end());
      if (i + 1 == chain.size()) break;
      const auto validity = expr_variables(reg_.relation(chain[i]).validity);
      out.insert(out.end(), validity.begin(), validity.end());
    }
    return out;
  }

  // `first` and the fallbacks it names, in order. The image refuses cycles of fallbacks, so this ends.
  std::vector<uint32_t> fallback_chain(uint32_t first) {
    std::vector<uint32_t> chain;
    for (int32_t r = int32_t(first); r >= 0; r = reg_.relation(uint32_t(r)).fallback) {
      if (reg_.relation(uint32_t(r)).kind == Kind::Iterative)
        throw ResolveError("cannot compile " + reg_.relation(uint32_t(r)).name + ": an iterative relation in a chain of fallbacks is not compiled");
      chain.push_back(uint32_t(r));
    }
    return chain;
  }

  // An approximation with declared fallbacks a -> b -> c becomes one step, piecewise { a if valid(a);
  // b if valid(b); c otherwise }: the resolver's choice at every point of a sweep, decided by validity.
  // (The resolver also falls back where a cannot be evaluated at all; compiled, that point gives a
  // non-finite value, which the sweep reports.) Every variable it reads has been visited (reads()).
  void emit_with_fallbacks(uint32_t v, uint32_t first) {
    const std::vector<uint32_t> chain = fallback_chain(first);
    Expr out;
    for (size_t i = 0; i < chain.size(); ++i) {
      const Relation& r = reg_.relation(chain[i]);
      out.nodes.insert(out.nodes.end(), r.rhs.nodes.begin(), r.rhs.nodes.end());
      if (i + 1 == chain.size()) break;
      out.nodes.insert(out.nodes.end(), r.validity.nodes.begin(), r.validity.nodes.end());
    }
    out.nodes.push_back(Node{Op::Piecewise, 0, uint32_t(2 * chain.size() - 1), 0});
    out_.program.steps.push_back({v, std::move(out)});
  }

  // An iterative relation becomes a chain of steps t0 = start, t(i+1) = map(t(i)), v = t(n), so the
  // program grows linearly with the count even when the map reads its argument several times.
  void emit(uint32_t v, const Relation& r) {
    if (r.kind != Kind::Iterative) {
      out_.program.steps.push_back({v, r.rhs});
      return;
    }
    if (r.iterations.nodes.size() != 1 || r.iterations.nodes[0].op != Op::Num)
      throw ResolveError("cannot compile " + r.name + ": its iteration count must be a literal number to be compiled");
    const double n = r.iterations.nodes[0].value;
    if (n < 0 || n > 4096 || n != std::floor(n)) throw ResolveError("cannot compile " + r.name + ": iteration count must be an integer in 0..4096");
    uint32_t current = next_temp_++;
    out_.program.steps.push_back({current, r.initial});
    for (int i = 0; i < int(n); ++i) {
      Expr step = r.rhs;
      for (auto& node : step.nodes)
        if (node.op == Op::Local) node = Node{Op::Var, current};
      current = next_temp_++;
      out_.program.steps.push_back({current, std::move(step)});
    }
    out_.program.steps.push_back({v, Expr{{Node{Op::Var, current}}}});
  }
};

}  // namespace

std::string missing_inputs_message(const Registry& reg, const std::vector<uint32_t>& missing) {
  std::string names;
  for (size_t i = 0; i < missing.size() && i < 12; ++i) names += (i ? ", " : "") + reg.var(missing[i]).name;
  if (missing.size() > 12) names += ", ... (" + std::to_string(missing.size()) + " in all)";
  return "the scenario leaves inputs missing: " + names + "; assign them (see `gpu-stack resolve TARGET --missing`)";
}

ConeBuild build_cone(const Registry& reg, Resolver& resolver, const std::map<uint32_t, double>& assignments,
                     const std::vector<uint32_t>& targets, const std::vector<uint32_t>& vary, bool only_vary_inputs) {
  return Builder(reg, resolver, assignments, vary, only_vary_inputs).run(targets);
}

}  // namespace gs
