// The reference interpreter: the evaluation tier below the JIT.
//
// It runs a cone program (runtime/jit/jit.h) in IEEE double precision with the scalar kernels of
// image/eval.h, after folding every step and sub-expression that reads no input into a constant (as
// LLVM's constant folder does for the JIT). Building one costs microseconds and loads nothing, so one
// point or a small batch is answered without the ~14 ms libLLVM load and the per-cone compile; above a
// measured batch size the JIT's machine code wins (runtime/uq/plan.h, docs/runtime.md). It is also
// the reference the JIT is property-tested against (tests/unit/jit/test_interpreter.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/jit/jit.h"

namespace gs {

class ConeInterpreter {
 public:
  // Throws std::runtime_error on a malformed program (cone_program_error).
  explicit ConeInterpreter(const ConeProgram& program);
  size_t n_inputs() const { return n_inputs_; }
  size_t n_outputs() const { return outputs_.size(); }
  size_t instructions() const { return code_.size(); }  // after constant folding
  void one(const double* inputs, double* outputs) const;
  // Row-major, as CompiledCone::batch. From a few rows on it interprets blocks of rows (run_block).
  void batch(const double* inputs, double* outputs, uint64_t rows) const;

 private:
  enum class Code : uint8_t { Const, Input, Reg, Store, Neg, Not, Add, Sub, Mul, Div, PowKnown, Binary, Call, Piecewise };
  struct Instr {
    Code code;
    Op op = Op::Num;     // Binary: which operator; Call: unused
    uint32_t index = 0;  // input, register, function id, or operand count (Call, Piecewise: count)
    uint32_t count = 0;
    double value = 0;    // Const value, PowKnown exponent
  };
  struct Output {
    Code from;  // Const, Input or Reg
    uint32_t index = 0;
    double value = 0;
  };
  size_t n_inputs_ = 0, n_regs_ = 0, max_depth_ = 0;
  std::vector<Instr> code_;
  std::vector<Output> outputs_;

  void run(const double* in, double* out, double* regs, double* stack) const;
  // The same program over a block of up to kBlockRows rows at once: every instruction runs as a short
  // loop over the block's lanes (structure of arrays), so its dispatch is paid once per block and the
  // arithmetic loops vectorise. Each lane does exactly the scalar run's operations, so results agree
  // bit for bit.
  static constexpr size_t kBlockRows = 32;
  void run_block(const double* in, double* out, size_t rows, double* regs, double* stack) const;
};

// A CompiledCone whose entry points run the reference interpreter (evaluator "interpreter").
CompiledCone interpret(const ConeProgram& program);

}  // namespace gs
