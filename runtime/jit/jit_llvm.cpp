#include "runtime/jit/jit_backend.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>


namespace gs {

namespace {

using namespace llvm;

void init_llvm_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

// LLVM's optimiser and code generator take time superlinear in the size of one function: a chain of
// 99,000 steps compiled as one function took 36 s of CPU against 0.5 s for 10,000 (bench/scaling.sh). A
// cone of more than kSingleFunctionNodes expression nodes is therefore compiled as a sequence of functions
// ("chunks") of at most about kChunkNodes nodes each, called in order; a value one chunk computes and a
// later one reads passes through a slot array. Smaller cones (every shipped headline cone) are compiled as
// before, as one function.
constexpr size_t kSingleFunctionNodes = 16'384;
constexpr size_t kChunkNodes = 4'096;

// Where a chunked cone's values live between its functions.
struct ChunkLayout {
  std::vector<size_t> bounds;                                   // chunk c is steps [bounds[c], bounds[c + 1])
  std::unordered_map<uint32_t, uint32_t> input_column;          // program input -> its column
  std::unordered_map<uint32_t, std::vector<uint32_t>> outputs;  // variable -> the output columns naming it
  std::unordered_map<uint32_t, uint32_t> slot;                  // step result a later chunk reads -> its slot
  size_t chunks() const { return bounds.size() - 1; }
};

size_t expression_nodes(const ConeProgram& p) {
  size_t n = 0;
  for (const auto& s : p.steps) n += s.expr.nodes.size();
  return n;
}

ChunkLayout plan_chunks(const ConeProgram& p) {
  ChunkLayout layout;
  layout.bounds.push_back(0);
  size_t nodes = 0;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    if (nodes > 0 && nodes + p.steps[i].expr.nodes.size() > kChunkNodes) layout.bounds.push_back(i), nodes = 0;
    nodes += p.steps[i].expr.nodes.size();
  }
  layout.bounds.push_back(p.steps.size());
  for (uint32_t i = 0; i < p.inputs.size(); ++i) layout.input_column.emplace(p.inputs[i], i);
  for (uint32_t i = 0; i < p.outputs.size(); ++i) layout.outputs[p.outputs[i]].push_back(i);
  std::unordered_map<uint32_t, uint32_t> chunk_of;  // step result -> the chunk computing it
  for (uint32_t c = 0; c < layout.chunks(); ++c)
    for (size_t i = layout.bounds[c]; i < layout.bounds[c + 1]; ++i) {
      for (const Node& n : p.steps[i].expr.nodes)
        if (auto it = n.op == Op::Var ? chunk_of.find(n.index) : chunk_of.end(); it != chunk_of.end() && it->second < c)
          layout.slot.emplace(n.index, uint32_t(layout.slot.size()));
      chunk_of[p.steps[i].var] = c;
    }
  return layout;
}

// Emits the IR of one cone body: loads inputs, evaluates steps in order, stores outputs. Input i is at
// in[i * in_stride], output o at out[o * out_stride]: stride 1 for one row, the block size for a
// structure-of-arrays block (the strides are constants once the body is inlined).
class ConeEmitter {
 public:
  ConeEmitter(Module& m, IRBuilder<>& b, Value* in, Value* out, Value* in_stride, Value* out_stride, bool reciprocal, bool integer_powers,
              bool divisor_reciprocals)
      : m_(m), b_(b), in_(in), out_(out), in_stride_(in_stride), out_stride_(out_stride), d_(b.getDoubleTy()), reciprocal_(reciprocal),
        integer_powers_(integer_powers), divisor_reciprocals_(divisor_reciprocals) {}

  // Steps [first, last) of a chunked cone, with slot s of a value at slots[s * in_stride] (the strides
  // are one and the same in a chunk). A variable this chunk does not compute is loaded where it lives:
  // an input from its column, an earlier chunk's result from its slot. Each result is stored to the
  // output columns naming it and to its slot when a later chunk reads it; the last chunk also copies the
  // inputs that are outputs.
  void emit_chunk(const ConeProgram& p, const ChunkLayout& layout, Value* slots, size_t first, size_t last) {
    layout_ = &layout, slots_ = slots;
    for (size_t i = first; i < last; ++i) {
      const uint32_t var = p.steps[i].var;
      Value* v = expr(p.steps[i].expr);
      values_[var] = v;
      if (auto o = layout.outputs.find(var); o != layout.outputs.end())
        for (uint32_t column : o->second) store(out_, out_stride_, column, v);
      if (auto s = layout.slot.find(var); s != layout.slot.end()) store(slots_, in_stride_, s->second, v);
    }
    if (last != p.steps.size()) return;
    for (uint32_t i = 0; i < p.outputs.size(); ++i)
      if (layout.input_column.count(p.outputs[i])) store(out_, out_stride_, i, lookup(p.outputs[i]));
  }

  void emit(const ConeProgram& p) {
    for (size_t i = 0; i < p.inputs.size(); ++i)
      values_[p.inputs[i]] = b_.CreateLoad(d_, b_.CreateInBoundsGEP(d_, in_, b_.CreateMul(b_.getInt64(i), in_stride_)), "in");
    for (const auto& s : p.steps) values_[s.var] = expr(s.expr);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      auto it = values_.find(p.outputs[i]);
      if (it == values_.end()) throw std::runtime_error("JIT: output variable " + std::to_string(p.outputs[i]) + " is neither an input nor computed");
      b_.CreateStore(it->second, b_.CreateInBoundsGEP(d_, out_, b_.CreateMul(b_.getInt64(i), out_stride_)));
    }
  }

 private:
  Module& m_;
  IRBuilder<>& b_;
  Value *in_, *out_, *in_stride_, *out_stride_;
  Type* d_;
  bool reciprocal_, integer_powers_, divisor_reciprocals_;
  const ChunkLayout* layout_ = nullptr;  // set while emitting one chunk of a chunked cone
  Value* slots_ = nullptr;

  void store(Value* base, Value* stride, uint32_t index, Value* v) {
    b_.CreateStore(v, b_.CreateInBoundsGEP(d_, base, b_.CreateMul(b_.getInt64(index), stride)));
  }
  Value* load(Value* base, Value* stride, uint32_t index, const char* name) {
    return b_.CreateLoad(d_, b_.CreateInBoundsGEP(d_, base, b_.CreateMul(b_.getInt64(index), stride)), name);
  }
  // The value of `var`: computed already, or (in a chunk) loaded from its input column or slot.
  Value* lookup(uint32_t var) {
    if (auto it = values_.find(var); it != values_.end()) return it->second;
    if (layout_) {
      if (auto in = layout_->input_column.find(var); in != layout_->input_column.end()) return values_[var] = load(in_, in_stride_, in->second, "in");
      if (auto s = layout_->slot.find(var); s != layout_->slot.end()) return values_[var] = load(slots_, in_stride_, s->second, "slot");
    }
    throw std::runtime_error("JIT: variable " + std::to_string(var) + " used before it is computed");
  }

  // a / b. With `reciprocal_`, a constant divisor whose reciprocal is a finite normal number becomes a
  // multiplication by that reciprocal (at most half an ulp from the quotient; a divide costs 4-16x a
  // multiply and does not pipeline). Divisors that vary per row stay divisions.
  Value* divide(Value* a, Value* b) {
    if (auto* c = dyn_cast<ConstantFP>(b); c && reciprocal_) {
      const double r = 1.0 / c->getValueAPF().convertToDouble();
      if (std::isnormal(r)) return b_.CreateFMul(a, ConstantFP::get(d_, r));
    }
    Value* q = b_.CreateFDiv(a, b);
    if (auto* i = dyn_cast<Instruction>(q); i && divisor_reciprocals_) i->setHasAllowReciprocal(true);
    return q;
  }
  std::map<uint32_t, Value*> values_;

  // A call to an LLVM intrinsic or a libm function by name. The latter are declared as touching no memory
  // (nothing reads errno here), so that the loop vectorizer may widen them or call a vector form.
  Value* call(const char* name, std::vector<Value*> args) {
    std::vector<Type*> types(args.size(), d_);
    FunctionCallee callee = m_.getOrInsertFunction(name, FunctionType::get(d_, types, false));
    if (auto* f = dyn_cast<Function>(callee.getCallee()); f && !f->isIntrinsic()) {
      f->setDoesNotAccessMemory();
      f->setDoesNotThrow();
      f->setWillReturn();
    }
    return b_.CreateCall(callee, args);
  }

  Value* pow(Value* base, Value* exponent) {
    if (auto* c = dyn_cast<ConstantFP>(exponent)) {
      double e = c->getValueAPF().convertToDouble();
      if (e == 0.5) return call("llvm.sqrt.f64", {base});
      if (e == -1) return b_.CreateFDiv(ConstantFP::get(d_, 1.0), base);  // the interpreter's 1 / x
      if (e == 1) return base;
      if (e == 2) return b_.CreateFMul(base, base);
      if (integer_powers_ && e >= 3 && e <= 16 && e == std::floor(e)) return power(base, unsigned(e));
    }
    return call("llvm.pow.f64", {base, exponent});
  }

  // x^n by squaring: floor(log2 n) squarings and one multiplication per further set bit of n. Each
  // rounding adds at most 2^-53 relative and a squaring doubles what came before, so the result is
  // within (n - 1) x 2^-53 of x^n (1.7e-15 for n = 16). Special values as pow's: NaN, infinities and
  // signed zeros follow from IEEE multiplication, and overflow gives infinity as pow does. Without
  // fast-math LLVM keeps a pow call for these exponents, and the call is scalar inside a widened loop.
  Value* power(Value* x, unsigned n) {
    Value* result = nullptr;
    for (Value* square = x; n; n >>= 1) {
      if (n & 1) result = result ? b_.CreateFMul(result, square) : square;
      if (n > 1) square = b_.CreateFMul(square, square);
    }
    return result;
  }

  Value* function(Func f, std::vector<Value*> a) {
    switch (f) {
      case Func::Exp: return call("llvm.exp.f64", a);
      case Func::Log: return call("llvm.log.f64", a);
      case Func::Sqrt: return call("llvm.sqrt.f64", a);
      case Func::Sin: return call("llvm.sin.f64", a);
      case Func::Cos: return call("llvm.cos.f64", a);
      case Func::Tan: return call("tan", a);
      case Func::Tanh: return call("tanh", a);
      case Func::Atan: return call("atan", a);
      case Func::Abs: return call("llvm.fabs.f64", a);
      case Func::Floor: return call("llvm.floor.f64", a);
      case Func::Ceil: return call("llvm.ceil.f64", a);
      case Func::Log2: return call("llvm.log2.f64", a);
      case Func::Log10: return call("llvm.log10.f64", a);
      case Func::Min:
      case Func::Max: {
        // IEEE 754-2019 minimum/maximum propagate NaN, unlike minnum/maxnum which would hide it.
        const char* name = f == Func::Min ? "llvm.minimum.f64" : "llvm.maximum.f64";
        Value* r = a[0];
        for (size_t i = 1; i < a.size(); ++i) r = call(name, {r, a[i]});
        return r;
      }
    }
    throw std::runtime_error("JIT: unknown function");
  }

  Value* expr(const Expr& e) {
    std::vector<Value*> st;
    auto pop = [&] {
      if (st.empty()) throw std::runtime_error("JIT: malformed expression");
      Value* v = st.back();
      st.pop_back();
      return v;
    };
    auto pop_n = [&](size_t n) {
      std::vector<Value*> v(n);
      for (size_t i = n; i-- > 0;) v[i] = pop();
      return v;
    };
    for (const auto& n : e.nodes) {
      switch (n.op) {
        case Op::Num: st.push_back(ConstantFP::get(d_, n.value)); break;
        case Op::Var: st.push_back(lookup(n.index)); break;
        case Op::Local: throw std::runtime_error("JIT: iterative relations must be unfolded before compilation");
        case Op::Add: { auto b = pop(), a = pop(); st.push_back(b_.CreateFAdd(a, b)); break; }
        case Op::Sub: { auto b = pop(), a = pop(); st.push_back(b_.CreateFSub(a, b)); break; }
        case Op::Mul: { auto b = pop(), a = pop(); st.push_back(b_.CreateFMul(a, b)); break; }
        case Op::Div: { auto b = pop(), a = pop(); st.push_back(divide(a, b)); break; }
        case Op::Pow: { auto b = pop(), a = pop(); st.push_back(pow(a, b)); break; }
        case Op::Neg: st.push_back(b_.CreateFNeg(pop())); break;
        case Op::Call: st.push_back(function(Func(n.index), pop_n(n.count))); break;
        case Op::Lt: { auto b = pop(), a = pop(); st.push_back(b_.CreateFCmpOLT(a, b)); break; }
        case Op::Le: { auto b = pop(), a = pop(); st.push_back(b_.CreateFCmpOLE(a, b)); break; }
        case Op::Gt: { auto b = pop(), a = pop(); st.push_back(b_.CreateFCmpOGT(a, b)); break; }
        case Op::Ge: { auto b = pop(), a = pop(); st.push_back(b_.CreateFCmpOGE(a, b)); break; }
        case Op::Eq: { auto b = pop(), a = pop(); st.push_back(b_.CreateFCmpOEQ(a, b)); break; }
        case Op::Ne: { auto b = pop(), a = pop(); st.push_back(b_.CreateFCmpUNE(a, b)); break; }
        case Op::And: { auto b = pop(), a = pop(); st.push_back(b_.CreateAnd(a, b)); break; }
        case Op::Or: { auto b = pop(), a = pop(); st.push_back(b_.CreateOr(a, b)); break; }
        case Op::Not: st.push_back(b_.CreateNot(pop())); break;
        case Op::Piecewise: {
          auto v = pop_n(n.count);
          Value* r = v.back();  // otherwise
          for (size_t i = v.size() - 1; i >= 2; i -= 2) r = b_.CreateSelect(v[i - 1], v[i - 2], r);
          st.push_back(r);
          break;
        }
      }
    }
    if (st.size() != 1) throw std::runtime_error("JIT: malformed expression");
    return st.back();
  }
};

// glibc's vector math library (libmvec) under the x86_64 vector function ABI: _ZGV<isa>N<lanes><one v
// per argument>_<name>, isa 'd' AVX2 (4 doubles), 'e' AVX-512 (8 doubles). LLVM 19's own LIBMVEC_X86
// table has no 8-lane entries, so on an AVX-512 host, where the vectorizer widens to 8 lanes, each call
// would be split into 8 scalar libm calls; and it lacks the forms glibc 2.35 added (log2, log10, tanh,
// atan). `scalar` is the call the cone emitter makes.
struct VectorForm {
  const char* scalar;
  const char* name;
  unsigned lanes;
  const char* abi;  // LLVM's own mangling of the shape: _ZGV_LLVM_N<lanes><v per argument>
};
constexpr VectorForm kLibmvec[] = {
    {"llvm.exp.f64", "_ZGVdN4v_exp", 4, "_ZGV_LLVM_N4v"},        {"llvm.exp.f64", "_ZGVeN8v_exp", 8, "_ZGV_LLVM_N8v"},
    {"llvm.log.f64", "_ZGVdN4v_log", 4, "_ZGV_LLVM_N4v"},        {"llvm.log.f64", "_ZGVeN8v_log", 8, "_ZGV_LLVM_N8v"},
    {"llvm.pow.f64", "_ZGVdN4vv_pow", 4, "_ZGV_LLVM_N4vv"},      {"llvm.pow.f64", "_ZGVeN8vv_pow", 8, "_ZGV_LLVM_N8vv"},
    {"llvm.sin.f64", "_ZGVdN4v_sin", 4, "_ZGV_LLVM_N4v"},        {"llvm.sin.f64", "_ZGVeN8v_sin", 8, "_ZGV_LLVM_N8v"},
    {"llvm.cos.f64", "_ZGVdN4v_cos", 4, "_ZGV_LLVM_N4v"},        {"llvm.cos.f64", "_ZGVeN8v_cos", 8, "_ZGV_LLVM_N8v"},
    {"llvm.log2.f64", "_ZGVdN4v_log2", 4, "_ZGV_LLVM_N4v"},      {"llvm.log2.f64", "_ZGVeN8v_log2", 8, "_ZGV_LLVM_N8v"},
    {"llvm.log10.f64", "_ZGVdN4v_log10", 4, "_ZGV_LLVM_N4v"},    {"llvm.log10.f64", "_ZGVeN8v_log10", 8, "_ZGV_LLVM_N8v"},
    {"tan", "_ZGVdN4v_tan", 4, "_ZGV_LLVM_N4v"},                 {"tan", "_ZGVeN8v_tan", 8, "_ZGV_LLVM_N8v"},
    {"tanh", "_ZGVdN4v_tanh", 4, "_ZGV_LLVM_N4v"},               {"tanh", "_ZGVeN8v_tanh", 8, "_ZGV_LLVM_N8v"},
    {"atan", "_ZGVdN4v_atan", 4, "_ZGV_LLVM_N4v"},               {"atan", "_ZGVeN8v_atan", 8, "_ZGV_LLVM_N8v"},
};

// The forms this host can run (AVX2 for 4 lanes, AVX-512F for 8) and the loaded libmvec defines.
std::vector<VecDesc> usable_vector_forms(const std::vector<std::string>& features, sys::DynamicLibrary& libmvec) {
  auto has = [&](const char* f) { return std::find(features.begin(), features.end(), f) != features.end(); };
  std::vector<VecDesc> forms;
  for (const VectorForm& f : kLibmvec)
    if (has(f.lanes == 8 ? "+avx512f" : "+avx2") && libmvec.getAddressOfSymbol(f.name))
      forms.emplace_back(f.scalar, f.name, ElementCount::getFixed(f.lanes), false, f.abi);
  return forms;
}

// With `tm`, the passes see the host's vector units (the loop vectorizer's cost model needs them);
// without, LLVM assumes no vector registers and the batch loop stays scalar. `vector_forms`: calls the
// vectorizer may replace by a vector function (libmvec's, above).
void optimize(Module& m, TargetMachine* tm, const std::vector<VecDesc>& vector_forms) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(tm);
  const Triple triple(m.getTargetTriple());
  TargetLibraryInfoImpl library(triple);
  library.addVectorizableFunctions(vector_forms);
  fam.registerPass([&] { return TargetLibraryAnalysis(library); });  // before the defaults, which would add their own
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2).run(m, mam);
}

// A counted loop `for (j = 0; j < n; ++j) body(j)` at the builder's position; leaves the builder after it.
void counted_loop(IRBuilder<>& b, Value* n, const std::function<void(Value*)>& body) {
  Function* f = b.GetInsertBlock()->getParent();
  LLVMContext& ctx = b.getContext();
  auto* pre = b.GetInsertBlock();
  auto* loop = BasicBlock::Create(ctx, "loop", f);
  auto* done = BasicBlock::Create(ctx, "done", f);
  b.CreateCondBr(b.CreateICmpEQ(n, b.getInt64(0)), done, loop);
  b.SetInsertPoint(loop);
  PHINode* j = b.CreatePHI(b.getInt64Ty(), 2);
  j->addIncoming(b.getInt64(0), pre);
  body(j);
  Value* next = b.CreateAdd(j, b.getInt64(1));
  j->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpEQ(next, n), done, loop);
  b.SetInsertPoint(done);
}

}  // namespace

// ORC's object cache hook: the compiler hands each object it emits to notifyObjectCompiled, which keeps
// the bytes of the module being compiled for gs::Jit to store on disk. Lookups go through gs::Jit (before
// any IR is built), so getObject never supplies one.
class ObjectCapture final : public ObjectCache {
 public:
  void expect(const std::string& module, std::string* sink) { module_ = module, sink_ = sink; }
  void notifyObjectCompiled(const Module* m, MemoryBufferRef obj) override {
    if (sink_ && m->getModuleIdentifier() == module_) sink_->assign(obj.getBufferStart(), obj.getBufferSize());
  }
  std::unique_ptr<MemoryBuffer> getObject(const Module*) override { return nullptr; }

 private:
  std::string module_;
  std::string* sink_ = nullptr;
};

// The LLVM side of gs::Jit: one LLJIT per backend; the caller serialises compile() and caches results.
class LlvmBackend final : public JitBackend {
 public:
  explicit LlvmBackend(JitOptions options) : options_(options) {
    init_llvm_once();
    auto jtmb = orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) throw std::runtime_error("JIT: cannot detect the host target: " + toString(jtmb.takeError()));
    // Backend O2: the cones are small, so better machine code costs little compile time and buys throughput.
    jtmb->setCodeGenOptLevel(CodeGenOptLevel::Default);
    const char global_prefix = jtmb->getTargetTriple().isOSBinFormatMachO() ? '_' : '\0';
    if (!options_.vectorize || jtmb->getTargetTriple().getArch() != Triple::x86_64) options_.vector_math = false;
    std::string forms;  // the vector math the machine code may call, for the cache key
    if (options_.vector_math) {  // libmvec's entry points, for the vectorised calls; without it, scalar calls
      std::string error;
      sys::DynamicLibrary libmvec = sys::DynamicLibrary::getPermanentLibrary("libmvec.so.1", &error);
      if (libmvec.isValid()) vector_forms_ = usable_vector_forms(jtmb->getFeatures().getFeatures(), libmvec);
      if (!vector_forms_.empty()) vector_library_ = std::make_unique<orc::DynamicLibrarySearchGenerator>(libmvec, global_prefix);
      for (const VecDesc& f : vector_forms_) forms += " " + f.getVectorFnName().str();
    }
    target_id_ = std::string("llvm ") + LLVM_VERSION_STRING + "; " + jtmb->getTargetTriple().str() + "; " + jtmb->getCPU() + "; " +
                 jtmb->getFeatures().getString() + "; codegen O2; " + (options_.vectorize ? "block batch, reciprocal division" : "scalar batch") +
                 (forms.empty() ? "" : ", libmvec:" + forms) + (options_.integer_powers ? ", integer powers" : "") +
                 (options_.vectorize && options_.divisor_reciprocals ? ", divisor reciprocals" : "");
    if (options_.vectorize) {  // the optimiser's view of the host: its CPU and vector features
      auto tm = jtmb->createTargetMachine();
      if (!tm) throw std::runtime_error("JIT: cannot create the host target machine: " + toString(tm.takeError()));
      tm_ = std::move(*tm);
    }
    auto j = orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*jtmb))
                 .setCompileFunctionCreator([this](orc::JITTargetMachineBuilder b) -> Expected<std::unique_ptr<orc::IRCompileLayer::IRCompiler>> {
                   auto tm = b.createTargetMachine();
                   if (!tm) return tm.takeError();
                   return std::make_unique<orc::TMOwningSimpleCompiler>(std::move(*tm), &capture_);
                 })
                 .create();
    if (!j) throw std::runtime_error("JIT: cannot create LLJIT: " + toString(j.takeError()));
    jit_ = std::move(*j);
    if (vector_library_) jit_->getMainJITDylib().addGenerator(std::move(vector_library_));
  }

  std::string target_id() const override { return target_id_; }
  CompiledCone compile(const ConeProgram& p, const std::string& symbol, std::string* object, std::string* ir) override;
  std::optional<CompiledCone> load(const ConeProgram& p, const std::string& symbol, const std::string& object) override;

 private:
  JitOptions options_;
  std::string target_id_;
  ObjectCapture capture_;
  std::unique_ptr<TargetMachine> tm_;
  std::vector<VecDesc> vector_forms_;                        // libmvec's functions the vectorizer may call
  std::unique_ptr<orc::DefinitionGenerator> vector_library_;  // libmvec's symbols, until the LLJIT exists
  std::unique_ptr<orc::LLJIT> jit_;

  CompiledCone entry_points(const ConeProgram& p, const std::string& symbol);
  // An emitter with this backend's rewrites (JitOptions).
  ConeEmitter emitter(Module& m, IRBuilder<>& b, Value* in, Value* out, Value* in_stride, Value* out_stride) const {
    return ConeEmitter(m, b, in, out, in_stride, out_stride, options_.vectorize, options_.integer_powers,
                       options_.vectorize && options_.divisor_reciprocals);
  }

  // Evaluates one block of `lanes` rows held in column arrays (stride `lanes`).
  using BlockEvaluator = std::function<void(IRBuilder<>& b, Value* in_cols, Value* out_cols, Value* slot_cols)>;
  void emit_scalar_batch(Function* batch, Function* body, const ConeProgram& p);
  void emit_block_batch(Function* batch, const ConeProgram& p, uint64_t rows_per_block, size_t slots, const BlockEvaluator& evaluate);
  std::vector<Function*> emit_chunks(Module& m, const ConeProgram& p, const ChunkLayout& layout, const std::string& base, uint64_t lanes);
};

// Rows per block of the block batch: 64 keep the column buffers within 64 KiB for up to 128 columns
// (inputs, outputs and a chunked cone's slots); wider cones use 8.
uint64_t block_rows(size_t columns) { return columns <= 128 ? 64 : 8; }

// Row after row, each row's inputs read in place: the former batch, kept as the baseline.
void LlvmBackend::emit_scalar_batch(Function* batch, Function* body, const ConeProgram& p) {
  IRBuilder<> b(BasicBlock::Create(batch->getContext(), "entry", batch));
  Type* d = b.getDoubleTy();
  counted_loop(b, batch->getArg(2), [&](Value* i) {
    Value* in_row = b.CreateGEP(d, batch->getArg(0), b.CreateMul(i, b.getInt64(p.inputs.size())));
    Value* out_row = b.CreateGEP(d, batch->getArg(1), b.CreateMul(i, b.getInt64(p.outputs.size())));
    b.CreateCall(body, {in_row, out_row, b.getInt64(1), b.getInt64(1)});
  });
  b.CreateRetVoid();
}

// Blocks of B rows: transpose the block's inputs into per-column arrays, evaluate the cone over the
// block's rows (loops the vectorizer widens: every load and store is unit-stride), and transpose the
// outputs back into the caller's rows.
void LlvmBackend::emit_block_batch(Function* batch, const ConeProgram& p, uint64_t B, size_t slots, const BlockEvaluator& evaluate) {
  const uint64_t n_in = p.inputs.size(), n_out = p.outputs.size();
  LLVMContext& ctx = batch->getContext();
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", batch));
  Type* d = b.getDoubleTy();
  Value* in_cols = b.CreateAlloca(d, b.getInt64(std::max<uint64_t>(n_in, 1) * B), "in_cols");
  Value* out_cols = b.CreateAlloca(d, b.getInt64(std::max<uint64_t>(n_out, 1) * B), "out_cols");
  Value* slot_cols = slots ? b.CreateAlloca(d, b.getInt64(slots * B), "slot_cols") : nullptr;
  b.CreateMemSet(in_cols, b.getInt8(0), b.getInt64(std::max<uint64_t>(n_in, 1) * B * 8), MaybeAlign(8));
  Value* rows = batch->getArg(2);
  Value* n_blocks = b.CreateUDiv(b.CreateAdd(rows, b.getInt64(B - 1)), b.getInt64(B));
  counted_loop(b, n_blocks, [&](Value* blk) {
    Value* first = b.CreateMul(blk, b.getInt64(B));
    Value* left = b.CreateSub(rows, first);
    Value* n = b.CreateSelect(b.CreateICmpULT(left, b.getInt64(B)), left, b.getInt64(B));
    Value* in_rows = b.CreateGEP(d, batch->getArg(0), b.CreateMul(first, b.getInt64(n_in)));
    Value* out_rows = b.CreateGEP(d, batch->getArg(1), b.CreateMul(first, b.getInt64(n_out)));
    counted_loop(b, n, [&](Value* j) {
      for (uint64_t k = 0; k < n_in; ++k) {
        Value* v = b.CreateLoad(d, b.CreateGEP(d, in_rows, b.CreateAdd(b.CreateMul(j, b.getInt64(n_in)), b.getInt64(k))));
        b.CreateStore(v, b.CreateGEP(d, in_cols, b.CreateAdd(b.getInt64(k * B), j)));
      }
    });
    // All B lanes, also in a short last block: a constant trip count that the vector width divides
    // leaves no scalar remainder loop, so the cone's code exists once. Lanes past `n` compute on the
    // previous block's (or zeroed) columns and are never copied out.
    evaluate(b, in_cols, out_cols, slot_cols);
    counted_loop(b, n, [&](Value* j) {
      for (uint64_t o = 0; o < n_out; ++o) {
        Value* v = b.CreateLoad(d, b.CreateGEP(d, out_cols, b.CreateAdd(b.getInt64(o * B), j)));
        b.CreateStore(v, b.CreateGEP(d, out_rows, b.CreateAdd(b.CreateMul(j, b.getInt64(n_out)), b.getInt64(o))));
      }
    });
  });
  b.CreateRetVoid();
}

// One function per chunk, chunk(in, out, slots), each a loop over `lanes` rows whose columns have stride
// `lanes` (the block batch's column arrays; 1 and 1 for a single row). NoInline: each stays a function
// of bounded size through the optimiser and the code generator.
std::vector<Function*> LlvmBackend::emit_chunks(Module& m, const ConeProgram& p, const ChunkLayout& layout, const std::string& base, uint64_t lanes) {
  LLVMContext& ctx = m.getContext();
  Type* ptr = PointerType::getUnqual(ctx);
  std::vector<Function*> chunks;
  for (size_t c = 0; c < layout.chunks(); ++c) {
    Function* f = Function::Create(FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr, ptr}, false), Function::InternalLinkage,
                                   base + "_chunk" + std::to_string(c), &m);
    f->addFnAttr(Attribute::NoInline);
    for (unsigned a = 0; a < 3; ++a) f->addParamAttr(a, Attribute::NoAlias);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", f));
    Type* d = b.getDoubleTy();
    counted_loop(b, b.getInt64(lanes), [&](Value* j) {
      Value* stride = b.getInt64(lanes);
      ConeEmitter e = emitter(m, b, b.CreateGEP(d, f->getArg(0), j), b.CreateGEP(d, f->getArg(1), j), stride, stride);
      e.emit_chunk(p, layout, b.CreateGEP(d, f->getArg(2), j), layout.bounds[c], layout.bounds[c + 1]);
    });
    b.CreateRetVoid();
    chunks.push_back(f);
  }
  return chunks;
}

CompiledCone LlvmBackend::entry_points(const ConeProgram& p, const std::string& base) {
  auto one_sym = jit_->lookup(base + "_one");
  if (!one_sym) throw std::runtime_error("JIT: " + toString(one_sym.takeError()));
  auto batch_sym = jit_->lookup(base + "_batch");
  if (!batch_sym) throw std::runtime_error("JIT: " + toString(batch_sym.takeError()));
  CompiledCone c;
  c.one = one_sym->toPtr<ConeFn>();
  c.batch = batch_sym->toPtr<ConeBatchFn>();
  c.n_inputs = p.inputs.size(), c.n_outputs = p.outputs.size();
  return c;
}

// A cached object is checked before it reaches the linker: it must parse as an object file and define
// both entry points (the on-disk cache has already checked its checksum).
std::optional<CompiledCone> LlvmBackend::load(const ConeProgram& p, const std::string& symbol, const std::string& object) {
  const auto start = std::chrono::steady_clock::now();
  auto buffer = MemoryBuffer::getMemBufferCopy(object, symbol);
  auto file = object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    consumeError(file.takeError());
    return std::nullopt;
  }
  int found = 0;
  for (const object::SymbolRef& sym : (*file)->symbols()) {
    auto name = sym.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    found += *name == symbol + "_one" || *name == symbol + "_batch";
  }
  if (found != 2) return std::nullopt;
  if (auto err = jit_->addObjectFile(std::move(buffer))) {
    consumeError(std::move(err));
    return std::nullopt;
  }
  try {
    CompiledCone c = entry_points(p, symbol);
    c.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return c;
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

CompiledCone LlvmBackend::compile(const ConeProgram& p, const std::string& symbol, std::string* object, std::string* ir) {
  auto start = std::chrono::steady_clock::now();
  const std::string& base = symbol;
  auto ctx = std::make_unique<LLVMContext>();
  auto mod = std::make_unique<Module>(base, *ctx);
  mod->setDataLayout(jit_->getDataLayout());
  if (tm_) mod->setTargetTriple(tm_->getTargetTriple().str());
  Type* ptr = PointerType::getUnqual(*ctx);
  Type* i64 = Type::getInt64Ty(*ctx);
  Type* void_ty = Type::getVoidTy(*ctx);

  // body(in, out, in_stride, out_stride): the evaluation, inlined into both entry points. The pointers
  // never alias (inputs and outputs are separate arrays), which the vectorizer needs to know.
  Function* body = Function::Create(FunctionType::get(void_ty, {ptr, ptr, i64, i64}, false), Function::InternalLinkage, base + "_body", mod.get());
  body->addFnAttr(Attribute::AlwaysInline);
  body->addParamAttr(0, Attribute::NoAlias);
  body->addParamAttr(1, Attribute::NoAlias);
  Function* batch = Function::Create(FunctionType::get(void_ty, {ptr, ptr, i64}, false), Function::ExternalLinkage, base + "_batch", mod.get());
  if (expression_nodes(p) <= kSingleFunctionNodes) {
    IRBuilder<> b(BasicBlock::Create(*ctx, "entry", body));
    emitter(*mod, b, body->getArg(0), body->getArg(1), body->getArg(2), body->getArg(3)).emit(p);
    b.CreateRetVoid();
    const uint64_t B = block_rows(p.inputs.size() + p.outputs.size());
    if (options_.vectorize)
      emit_block_batch(batch, p, B, 0, [&](IRBuilder<>& lb, Value* in_cols, Value* out_cols, Value*) {
        counted_loop(lb, lb.getInt64(B), [&](Value* j) {
          Type* d = lb.getDoubleTy();
          lb.CreateCall(body, {lb.CreateGEP(d, in_cols, j), lb.CreateGEP(d, out_cols, j), lb.getInt64(B), lb.getInt64(B)});
        });
      });
    else
      emit_scalar_batch(batch, body, p);
  } else {
    const ChunkLayout layout = plan_chunks(p);
    const size_t slots = std::max<size_t>(layout.slot.size(), 1);
    const uint64_t B = block_rows(p.inputs.size() + p.outputs.size() + slots);
    const std::vector<Function*> chunks = emit_chunks(*mod, p, layout, base, options_.vectorize ? B : 1);
    auto call_chunks = [&](IRBuilder<>& lb, Value* in, Value* out, Value* slot_array) {
      for (Function* c : chunks) lb.CreateCall(c, {in, out, slot_array});
    };
    // The scalar body (one row, strides 1): its slots on its own stack.
    IRBuilder<> b(BasicBlock::Create(*ctx, "entry", body));
    call_chunks(b, body->getArg(0), body->getArg(1), b.CreateAlloca(b.getDoubleTy(), b.getInt64(slots), "slots"));
    b.CreateRetVoid();
    if (options_.vectorize) emit_block_batch(batch, p, B, slots, call_chunks);
    else emit_scalar_batch(batch, body, p);
  }
  // one(): the scalar baseline inlines the body again; the block JIT calls its batch for one row, so the
  // cone is compiled once (a single JIT row costs a block; the Plan sends single rows to the interpreter).
  Function* one = Function::Create(FunctionType::get(void_ty, {ptr, ptr}, false), Function::ExternalLinkage, base + "_one", mod.get());
  {
    IRBuilder<> b(BasicBlock::Create(*ctx, "entry", one));
    if (options_.vectorize) {
      batch->addFnAttr(Attribute::NoInline);
      b.CreateCall(batch, {one->getArg(0), one->getArg(1), b.getInt64(1)});
    } else {
      b.CreateCall(body, {one->getArg(0), one->getArg(1), b.getInt64(1), b.getInt64(1)});
    }
    b.CreateRetVoid();
  }
  std::string errors;
  raw_string_ostream os(errors);
  if (verifyModule(*mod, &os)) throw std::runtime_error("JIT: invalid IR: " + os.str());
  optimize(*mod, tm_.get(), vector_forms_);
  if (ir) {
    raw_string_ostream text(*ir);
    mod->print(text, nullptr);
  }
  if (auto err = jit_->addIRModule(orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
    throw std::runtime_error("JIT: " + toString(std::move(err)));
  capture_.expect(base, object);  // compilation happens on the first lookup
  CompiledCone c = entry_points(p, base);
  capture_.expect("", nullptr);
  c.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace gs

extern "C" gs::JitBackend* gs_jit_backend_create(const gs::JitOptions* options) { return new gs::LlvmBackend(options ? *options : gs::JitOptions{}); }
