// An evaluation plan: the one way callers turn "these targets under this scenario" into numbers.
//
// A Plan runs the resolver's selection and the cone builder once (runtime/uq/cone_builder.h), then hands
// out the cone behind an evaluator chosen by the work it will do:
//   - the reference interpreter (runtime/jit/interpreter.h) for one point and batches up to
//     kJitCrossoverRows rows: it is ready in microseconds and never loads LLVM;
//   - the JIT (runtime/jit/jit.h) above that, where machine code repays its load and compile time.
// GiNaC is not an evaluator here: it stays with symbolic work (formulas, derivatives, `--missing`).
// The crossover is measured by bench/plan_tiers.sh and recorded in docs/runtime.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/jit/jit.h"
#include "runtime/registry.h"
#include "runtime/uq/cone_builder.h"

namespace gs {

enum class Evaluator { Interpreter, Jit };
const char* evaluator_name(Evaluator e);

// How a Plan picks its evaluator: by batch size (Auto), or always one of them (for benchmarks and the
// cross-checks in tests). Set once per process (`gpu-stack --evaluator`).
enum class EvaluatorPolicy { Auto, Interpreter, Jit };
void set_evaluator_policy(EvaluatorPolicy policy);
EvaluatorPolicy evaluator_policy();
// Parses "auto", "interpreter" or "jit"; nullopt otherwise.
std::optional<EvaluatorPolicy> parse_evaluator_policy(const std::string& text);

// Rows from which Auto compiles with the JIT. bench/plan_tiers.sh measures the break-even of the
// shipped headlines' interval cones: 6k-12k rows once LLVM is loaded, 11k-33k rows for a process's
// first cone (which pays the libLLVM load); 16384 rows (four chunks) sits between. See docs/runtime.md.
constexpr size_t kJitCrossoverRows = 16'384;

// Auto's choice for a batch of `rows` evaluations under the process policy.
Evaluator choose_evaluator(size_t rows);

// A cone program behind one evaluator: the reference interpreter, or the process's one shared JIT
// (loaded on first use, its compile cache kept for the process). Plan::cone and callers that extend a
// plan's program themselves (the strategy search appends its constraints' sides) both come here, so
// there is one way to get an evaluator. Throws std::runtime_error on a malformed program.
CompiledCone compile_cone(const ConeProgram& program, Evaluator e);

class Plan {
 public:
  // `vary` lists variables that must stay inputs (their base value is the assignment, else NaN). With
  // `bake`, every other assignment becomes a constant, so the evaluators fold all work that does not
  // depend on the varied inputs. Throws ResolveError on a cycle among the selected relations.
  Plan(const Registry& reg, const std::map<uint32_t, double>& assignments, const std::map<uint32_t, std::string>& variants,
       const std::vector<uint32_t>& targets, const std::vector<uint32_t>& vary = {}, bool bake = true);

  const ConeProgram& program() const { return build_.program; }
  const std::vector<double>& base() const { return build_.base; }  // each input's value at the scenario
  const std::vector<uint32_t>& missing() const { return build_.missing; }
  bool complete() const { return build_.missing.empty(); }
  // "the scenario leaves inputs missing: a, b, ...; assign them ..." (names capped at 12).
  std::string describe_missing() const;
  // The input column of `var`; empty when the targets do not read it.
  std::optional<size_t> column(uint32_t var) const;

  // The cone behind one evaluator, built on first use and kept. The JIT is the process's shared one.
  // Throws std::runtime_error when the plan is incomplete or the program malformed.
  const CompiledCone& cone(Evaluator e);
  // The cone for a batch of about `rows` evaluations (choose_evaluator).
  const CompiledCone& cone_for_rows(size_t rows) { return cone(choose_evaluator(rows)); }
  // The targets at the base point, by the reference interpreter.
  std::vector<double> evaluate_base();

 private:
  const Registry& reg_;
  ConeBuild build_;
  std::optional<CompiledCone> interpreter_, jit_;
};

// One variable at a scenario by the reference interpreter: for a caller that would otherwise ask the GiNaC
// resolver for a number that doubles give as well (a count). Nothing when the cone leaves an input
// missing, cannot be built (a cycle) or gives a value that is not finite; the caller then asks the
// resolver, which decides those cases.
std::optional<double> interpreted_value(const Registry& reg, const std::map<uint32_t, double>& assignments,
                                        const std::map<uint32_t, std::string>& variants, uint32_t var);

}  // namespace gs
