#include "runtime/uq/plan.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>

#include "runtime/jit/interpreter.h"
#include "runtime/resolver.h"

namespace gs {
namespace {

std::atomic<EvaluatorPolicy> g_policy{EvaluatorPolicy::Auto};

// One JIT per process: creating it loads libLLVM and sets up ORC, which is most of a small compile.
Jit& process_jit() {
  static Jit jit;
  return jit;
}

}  // namespace

const char* evaluator_name(Evaluator e) { return e == Evaluator::Jit ? "jit" : "interpreter"; }

void set_evaluator_policy(EvaluatorPolicy policy) { g_policy = policy; }
EvaluatorPolicy evaluator_policy() { return g_policy; }

std::optional<EvaluatorPolicy> parse_evaluator_policy(const std::string& text) {
  if (text == "auto") return EvaluatorPolicy::Auto;
  if (text == "interpreter") return EvaluatorPolicy::Interpreter;
  if (text == "jit") return EvaluatorPolicy::Jit;
  return std::nullopt;
}

Evaluator choose_evaluator(size_t rows) {
  switch (evaluator_policy()) {
    case EvaluatorPolicy::Interpreter: return Evaluator::Interpreter;
    case EvaluatorPolicy::Jit: return Evaluator::Jit;
    case EvaluatorPolicy::Auto: break;
  }
  return rows >= kJitCrossoverRows ? Evaluator::Jit : Evaluator::Interpreter;
}

CompiledCone compile_cone(const ConeProgram& program, Evaluator e) {
  return e == Evaluator::Jit ? process_jit().compile(program) : interpret(program);
}

Plan::Plan(const Registry& reg, const std::map<uint32_t, double>& assignments, const std::map<uint32_t, std::string>& variants,
           const std::vector<uint32_t>& targets, const std::vector<uint32_t>& vary, bool bake)
    : reg_(reg) {
  Resolver resolver(reg, assignments, variants);
  build_ = build_cone(reg, resolver, assignments, targets, vary, bake);
}

std::string Plan::describe_missing() const { return missing_inputs_message(reg_, build_.missing); }

std::optional<size_t> Plan::column(uint32_t var) const {
  const auto& in = build_.program.inputs;
  auto it = std::find(in.begin(), in.end(), var);
  if (it == in.end()) return std::nullopt;
  return size_t(it - in.begin());
}

const CompiledCone& Plan::cone(Evaluator e) {
  if (!complete()) throw std::runtime_error(describe_missing());
  auto& slot = e == Evaluator::Jit ? jit_ : interpreter_;
  if (!slot) slot = compile_cone(build_.program, e);
  return *slot;
}

std::vector<double> Plan::evaluate_base() {
  std::vector<double> out(build_.program.outputs.size());
  cone(Evaluator::Interpreter).one(build_.base.data(), out.data());
  return out;
}

std::optional<double> interpreted_value(const Registry& reg, const std::map<uint32_t, double>& assignments,
                                        const std::map<uint32_t, std::string>& variants, uint32_t var) {
  try {
    Plan plan(reg, assignments, variants, {var});
    if (!plan.complete()) return std::nullopt;
    const double v = plan.evaluate_base()[0];
    if (std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace gs
