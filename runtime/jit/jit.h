// Native code for model cones (LLVM ORC LLJIT).
//
// A cone program is an ordered list of steps "variable := expression" over a set of free inputs, as the
// resolver selects them for one scenario. The JIT turns it into one machine-code function
//   void cone(const double* inputs, double* outputs)
// plus a batch entry point that loops over rows. Values are IEEE doubles without fast-math, so a NaN or
// an infinity produced by the model reaches the caller instead of being optimised away. LLVM headers
// are confined to jit.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "image/expr.h"

namespace gs {

struct ConeStep {
  uint32_t var = 0;  // the variable this step computes
  Expr expr;         // reads inputs and earlier steps; Local slot 0 is unsupported here (unfold first)
};

struct ConeProgram {
  std::vector<uint32_t> inputs;   // variable ids, in the order of the input array
  std::vector<ConeStep> steps;    // in evaluation order
  std::vector<uint32_t> outputs;  // variable ids (inputs or step results), in the order of the output array
  std::string content_hash() const;  // SHA-256 over a canonical encoding; the JIT cache key
};

// Empty when the program is well formed: every step a valid postfix program (image/eval.h) that reads
// only inputs and earlier steps, every output an input or a step. The one check both evaluators run.
std::string cone_program_error(const ConeProgram& program);

using ConeFn = void (*)(const double* inputs, double* outputs);
using ConeBatchFn = void (*)(const double* inputs, double* outputs, uint64_t rows);

// A cone ready to run: JIT machine code, or the reference interpreter (runtime/jit/interpreter.h)
// behind the same two entry points.
struct CompiledCone {
  std::function<void(const double*, double*)> one;
  std::function<void(const double*, double*, uint64_t)> batch;  // row-major: inputs rows × n_in, outputs rows × n_out
  size_t n_inputs = 0, n_outputs = 0;
  double compile_ms = 0;
  bool cached = false;  // true when this call found the cone already compiled
  const char* evaluator = "jit";  // "jit" or "interpreter"
};

// How the JIT shapes a cone's batch entry point.
struct JitOptions {
  // true: the batch runs blocks of rows in structure-of-arrays form (inputs transposed into per-column
  // arrays, the cone evaluated as one loop over the block's rows, outputs transposed back) through
  // LLVM's loop vectorizer with the host CPU's target machine (AVX2/AVX-512 where the host has them;
  // calls without vector forms stay scalar). Division by a constant becomes multiplication by its
  // reciprocal (at most half an ulp per division; see docs/runtime.md). false: the former scalar loop,
  // one row at a time, kept as the benchmarks' baseline.
  bool vectorize = true;
  // With `vectorize`: exp, log, pow, sin, cos, tan, log2, log10, tanh and atan inside the widened loop
  // call glibc's vector math library (libmvec: 4 lanes with AVX2, 8 with AVX-512; at most 4 ulp from the
  // correctly rounded value per call) instead of the scalar libm function once per lane, where the host
  // and the loaded libmvec.so.1 have the form. Off by default: it measured no faster on the cost cone
  // (bench/jit_simd.sh, docs/runtime.md), whose few calls are not where its time goes.
  bool vector_math = false;
  // pow(x, n) for a constant whole n in [3, 16] as multiplications by squaring: relative error at most
  // (n - 1) x 2^-53 (1.7e-15 for n = 16; libm's pow is within 1 ulp). Both batch shapes.
  bool integer_powers = true;
  // With `vectorize`: a division by a per-row value may become a multiplication by its reciprocal where
  // LLVM finds that cheaper (several divisions by one divisor share one reciprocal; a divisor that only
  // folds to a constant after optimisation), at most 2 x 2^-53 relative from the quotient; it differs
  // otherwise only where the reciprocal overflows or is subnormal (|divisor| below 2.2e-308 or above 4.5e307).
  bool divisor_reciprocals = true;
};

// The LLVM module the JIT opens on first use (Workspace::jit_module); empty or never called: the one this
// build made. Set by the front end before the first compile; later calls have no effect.
void use_jit_module(const std::string& path);

// A folder where every Jit made afterwards writes each cone's optimised LLVM IR as <symbol>.ll (to read
// what the vectorizer made of it); empty, the default: none. The front end sets it from GSTACK_JIT_DUMP.
void set_jit_dump_dir(const std::string& dir);

class Jit {
 public:
  explicit Jit(JitOptions options = {});
  ~Jit();
  Jit(const Jit&) = delete;
  Jit& operator=(const Jit&) = delete;
  // Compiles (or returns the cached function for) a cone. Throws std::runtime_error on a malformed
  // program. The returned functions stay valid for the lifetime of this Jit and are thread-safe.
  CompiledCone compile(const ConeProgram& program);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gs
