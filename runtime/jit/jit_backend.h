// The boundary between gs::Jit and its LLVM implementation, which lives in a separately loaded module
// (libgs_jit_llvm.so): loading libLLVM costs about 14 ms per process, so only the commands that compile
// cones pay for it.
#pragma once

#include "runtime/jit/jit.h"

namespace gs {

struct JitBackend {
  virtual ~JitBackend() = default;
  // Compiles one program; not thread-safe (gs::Jit serialises calls).
  virtual CompiledCone compile(const ConeProgram& program) = 0;
};

}  // namespace gs

// The module's one entry point, found with dlsym.
extern "C" gs::JitBackend* gs_jit_backend_create(const gs::JitOptions* options);
