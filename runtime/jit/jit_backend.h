// The boundary between gs::Jit and its LLVM implementation, which lives in a separately loaded module
// (libgs_jit_llvm.so): loading libLLVM costs about 14 ms per process, so only the commands that compile
// cones pay for it.
#pragma once

#include <optional>
#include <string>

#include "runtime/jit/jit.h"

namespace gs {

// Not thread-safe: gs::Jit serialises calls. Entry points are named <symbol>_one and <symbol>_batch;
// gs::Jit chooses symbols never used before in the backend.
struct JitBackend {
  virtual ~JitBackend() = default;
  // Everything besides the program that the machine code depends on: LLVM version, target triple, CPU,
  // CPU features and the JIT's options. Part of the on-disk cache key.
  virtual std::string target_id() const = 0;
  // Compiles one program; `object`, when given, receives the relocatable object file it compiled to, and
  // `ir` the optimised LLVM IR (text) it was compiled from.
  virtual CompiledCone compile(const ConeProgram& program, const std::string& symbol, std::string* object, std::string* ir = nullptr) = 0;
  // Links an object that compile() produced under `symbol` (from the on-disk cache); nothing when the
  // bytes are not such an object.
  virtual std::optional<CompiledCone> load(const ConeProgram& program, const std::string& symbol, const std::string& object) = 0;
};

}  // namespace gs

// The module's one entry point, found with dlsym.
extern "C" gs::JitBackend* gs_jit_backend_create(const gs::JitOptions* options);
