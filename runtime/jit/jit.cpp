#include "runtime/jit/jit.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "image/atomic_file.h"
#include "image/eval.h"
#include "image/image.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/object_cache.h"

namespace gs {

std::string ConeProgram::content_hash() const {
  std::vector<uint8_t> bytes;
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(v >> (8 * i)));
  };
  auto put_list = [&](const std::vector<uint32_t>& v) {
    put32(uint32_t(v.size()));
    for (uint32_t x : v) put32(x);
  };
  put_list(inputs);
  put_list(outputs);
  put32(uint32_t(steps.size()));
  for (const auto& s : steps) {
    put32(s.var);
    put32(uint32_t(s.expr.nodes.size()));
    for (const auto& n : s.expr.nodes) {
      bytes.push_back(uint8_t(n.op));
      put32(n.index);
      put32(n.count);
      uint64_t bits;
      std::memcpy(&bits, &n.value, 8);
      put32(uint32_t(bits)), put32(uint32_t(bits >> 32));
    }
  }
  return sha256_hex(bytes.data(), bytes.size());
}

std::string cone_program_error(const ConeProgram& p) {
  std::set<uint32_t> defined(p.inputs.begin(), p.inputs.end());
  if (defined.size() != p.inputs.size()) return "an input is listed twice";
  for (const auto& s : p.steps) {
    // Built only for a message: a cone has about a thousand steps and is checked on every compile.
    const auto where = [&s] { return "step for variable " + std::to_string(s.var) + ": "; };
    if (s.expr.empty()) return where() + "an empty expression";
    if (auto err = postfix_error(s.expr, {}); !err.empty()) return where() + err;
    for (const auto& n : s.expr.nodes)
      if (n.op == Op::Var && !defined.count(n.index)) return where() + "variable " + std::to_string(n.index) + " used before it is computed";
    if (!defined.insert(s.var).second) return where() + "the variable is computed twice";
  }
  for (uint32_t o : p.outputs)
    if (!defined.count(o)) return "output variable " + std::to_string(o) + " is neither an input nor computed";
  return "";
}

namespace {

std::string& module_path() {
  static std::string path;
  return path;
}

// The LLVM module, opened once per process on first use: the front end's choice, else the one this build made.
using CreateFn = JitBackend* (*)(const JitOptions*);
CreateFn backend_factory() {
  static CreateFn create = [] {
    const std::string path = module_path().empty() ? std::string(GSTACK_JIT_MODULE) : module_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error("JIT: cannot load the LLVM module '" + path + "': " + dlerror());
    auto fn = reinterpret_cast<CreateFn>(dlsym(handle, "gs_jit_backend_create"));
    if (!fn) throw std::runtime_error("JIT: '" + path + "' has no gs_jit_backend_create");
    return fn;
  }();
  return create;
}

}  // namespace

void use_jit_module(const std::string& path) { module_path() = path; }

static std::string& dump_dir_setting() {
  static std::string dir;
  return dir;
}
void set_jit_dump_dir(const std::string& dir) { dump_dir_setting() = dir; }

struct Jit::Impl {
  std::unique_ptr<JitBackend> backend;
  std::string target_id;
  std::optional<ObjectFileCache> disk;
  std::mutex mutex;
  std::map<std::string, CompiledCone> cache;
  std::set<std::string> symbols;  // used in the backend, by compiles and by loads (even failed ones)
  std::string dump_dir;           // set_jit_dump_dir: where each compile's optimised IR goes (debugging)

  // "c" + 16 hex digits of the key + a number not used yet: names from other processes' objects (the
  // same key, another number) and this backend's own never collide.
  std::string fresh_symbol(const std::string& key) {
    for (size_t n = 0;; ++n)
      if (std::string s = "c" + key.substr(0, 16) + "_" + std::to_string(n); !symbols.count(s)) return *symbols.insert(s).first;
  }
};

Jit::Jit(JitOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->backend.reset(backend_factory()(&options));
  impl_->target_id = impl_->backend->target_id();
  if (!jit_cache_dir().empty()) impl_->disk.emplace(jit_cache_dir());
  impl_->dump_dir = dump_dir_setting();
}

Jit::~Jit() = default;

CompiledCone Jit::compile(const ConeProgram& p) {
  const std::string key = p.content_hash();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (auto it = impl_->cache.find(key); it != impl_->cache.end()) {
    CompiledCone c = it->second;
    c.cached = true;
    return c;
  }
  if (auto err = cone_program_error(p); !err.empty()) throw std::runtime_error("JIT: " + err);
  // The disk key: the program and everything else the machine code depends on.
  const std::string with_target = key + "\n" + impl_->target_id;
  const std::string disk_key = sha256_hex(with_target.data(), with_target.size());
  if (impl_->disk) {
    if (auto entry = impl_->disk->read(disk_key); entry && !impl_->symbols.count(entry->symbol)) {
      impl_->symbols.insert(entry->symbol);
      if (auto c = impl_->backend->load(p, entry->symbol, entry->object)) {
        count_jit_cache(&JitCacheStats::loaded);
        impl_->cache[key] = *c;
        return *c;
      }
      count_jit_cache(&JitCacheStats::rejected);
    } else if (!entry && impl_->disk->present(disk_key)) {
      count_jit_cache(&JitCacheStats::rejected);
    }
  }
  const std::string symbol = impl_->fresh_symbol(disk_key);
  std::string object;
  std::string ir;
  const bool dump = !impl_->dump_dir.empty();
  CompiledCone c = impl_->backend->compile(p, symbol, impl_->disk ? &object : nullptr, dump ? &ir : nullptr);
  // A debugging aid, so a folder that cannot be written is not the command's failure.
  if (dump) try {
      write_file_atomic(impl_->dump_dir + "/" + symbol + ".ll", ir);
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "gpu-stack: JIT IR dump: %s\n", e.what());
    }
  if (impl_->disk) {
    count_jit_cache(&JitCacheStats::compiled);
    if (!object.empty() && impl_->disk->write(disk_key, {symbol, object})) count_jit_cache(&JitCacheStats::stored);
  }
  impl_->cache[key] = c;
  return c;
}

}  // namespace gs
