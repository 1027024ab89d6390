#include "runtime/jit/jit_backend.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>


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

// Emits the IR of one cone body: loads inputs, evaluates steps in order, stores outputs.
class ConeEmitter {
 public:
  ConeEmitter(Module& m, IRBuilder<>& b, Value* in, Value* out) : m_(m), b_(b), in_(in), out_(out), d_(b.getDoubleTy()) {}

  void emit(const ConeProgram& p) {
    for (size_t i = 0; i < p.inputs.size(); ++i)
      values_[p.inputs[i]] = b_.CreateLoad(d_, b_.CreateConstInBoundsGEP1_64(d_, in_, i), "in");
    for (const auto& s : p.steps) values_[s.var] = expr(s.expr);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      auto it = values_.find(p.outputs[i]);
      if (it == values_.end()) throw std::runtime_error("JIT: output variable " + std::to_string(p.outputs[i]) + " is neither an input nor computed");
      b_.CreateStore(it->second, b_.CreateConstInBoundsGEP1_64(d_, out_, i));
    }
  }

 private:
  Module& m_;
  IRBuilder<>& b_;
  Value *in_, *out_;
  Type* d_;
  std::map<uint32_t, Value*> values_;

  Value* call(const char* name, std::vector<Value*> args) {
    std::vector<Type*> types(args.size(), d_);
    return b_.CreateCall(m_.getOrInsertFunction(name, FunctionType::get(d_, types, false)), args);
  }

  Value* pow(Value* base, Value* exponent) {
    if (auto* c = dyn_cast<ConstantFP>(exponent)) {
      double e = c->getValueAPF().convertToDouble();
      if (e == 0.5) return call("llvm.sqrt.f64", {base});
      if (e == -1) return b_.CreateFDiv(ConstantFP::get(d_, 1.0), base);
      if (e == 1) return base;
      if (e == 2) return b_.CreateFMul(base, base);
    }
    return call("llvm.pow.f64", {base, exponent});
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
        case Op::Var: {
          auto it = values_.find(n.index);
          if (it == values_.end()) throw std::runtime_error("JIT: variable " + std::to_string(n.index) + " used before it is computed");
          st.push_back(it->second);
          break;
        }
        case Op::Local: throw std::runtime_error("JIT: iterative relations must be unfolded before compilation");
        case Op::Add: { auto b = pop(), a = pop(); st.push_back(b_.CreateFAdd(a, b)); break; }
        case Op::Sub: { auto b = pop(), a = pop(); st.push_back(b_.CreateFSub(a, b)); break; }
        case Op::Mul: { auto b = pop(), a = pop(); st.push_back(b_.CreateFMul(a, b)); break; }
        case Op::Div: { auto b = pop(), a = pop(); st.push_back(b_.CreateFDiv(a, b)); break; }
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

void optimize(Module& m) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(OptimizationLevel::O2).run(m, mam);
}

}  // namespace

// The LLVM side of gs::Jit: one LLJIT per backend; the caller serialises compile() and caches results.
class LlvmBackend final : public JitBackend {
 public:
  LlvmBackend() {
    init_llvm_once();
    auto jtmb = orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) throw std::runtime_error("JIT: cannot detect the host target: " + toString(jtmb.takeError()));
    // Backend O2: the cones are small, so better machine code costs little compile time and buys throughput.
    jtmb->setCodeGenOptLevel(CodeGenOptLevel::Default);
    auto j = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!j) throw std::runtime_error("JIT: cannot create LLJIT: " + toString(j.takeError()));
    jit_ = std::move(*j);
  }

  CompiledCone compile(const ConeProgram& p) override;

 private:
  std::unique_ptr<orc::LLJIT> jit_;
  uint64_t next_id_ = 0;
};

CompiledCone LlvmBackend::compile(const ConeProgram& p) {
  auto start = std::chrono::steady_clock::now();
  const std::string base = "cone" + std::to_string(next_id_++);
  auto ctx = std::make_unique<LLVMContext>();
  auto mod = std::make_unique<Module>(base, *ctx);
  mod->setDataLayout(jit_->getDataLayout());
  Type* d = Type::getDoubleTy(*ctx);
  Type* ptr = PointerType::getUnqual(*ctx);
  Type* i64 = Type::getInt64Ty(*ctx);

  // body: the evaluation, inlined into both entry points.
  Function* body = Function::Create(FunctionType::get(Type::getVoidTy(*ctx), {ptr, ptr}, false), Function::InternalLinkage, base + "_body", mod.get());
  body->addFnAttr(Attribute::AlwaysInline);
  {
    IRBuilder<> b(BasicBlock::Create(*ctx, "entry", body));
    ConeEmitter(*mod, b, body->getArg(0), body->getArg(1)).emit(p);
    b.CreateRetVoid();
  }
  Function* one = Function::Create(FunctionType::get(Type::getVoidTy(*ctx), {ptr, ptr}, false), Function::ExternalLinkage, base + "_one", mod.get());
  {
    IRBuilder<> b(BasicBlock::Create(*ctx, "entry", one));
    b.CreateCall(body, {one->getArg(0), one->getArg(1)});
    b.CreateRetVoid();
  }
  Function* batch = Function::Create(FunctionType::get(Type::getVoidTy(*ctx), {ptr, ptr, i64}, false), Function::ExternalLinkage, base + "_batch", mod.get());
  {
    auto* entry = BasicBlock::Create(*ctx, "entry", batch);
    auto* loop = BasicBlock::Create(*ctx, "loop", batch);
    auto* done = BasicBlock::Create(*ctx, "done", batch);
    IRBuilder<> b(entry);
    Value* rows = batch->getArg(2);
    b.CreateCondBr(b.CreateICmpEQ(rows, b.getInt64(0)), done, loop);
    b.SetInsertPoint(loop);
    PHINode* i = b.CreatePHI(i64, 2);
    i->addIncoming(b.getInt64(0), entry);
    Value* in_row = b.CreateGEP(d, batch->getArg(0), b.CreateMul(i, b.getInt64(p.inputs.size())));
    Value* out_row = b.CreateGEP(d, batch->getArg(1), b.CreateMul(i, b.getInt64(p.outputs.size())));
    b.CreateCall(body, {in_row, out_row});
    Value* next = b.CreateAdd(i, b.getInt64(1));
    i->addIncoming(next, loop);
    b.CreateCondBr(b.CreateICmpEQ(next, rows), done, loop);
    b.SetInsertPoint(done);
    b.CreateRetVoid();
  }
  std::string errors;
  raw_string_ostream os(errors);
  if (verifyModule(*mod, &os)) throw std::runtime_error("JIT: invalid IR: " + os.str());
  optimize(*mod);
  if (auto err = jit_->addIRModule(orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
    throw std::runtime_error("JIT: " + toString(std::move(err)));
  auto one_sym = jit_->lookup(base + "_one");
  if (!one_sym) throw std::runtime_error("JIT: " + toString(one_sym.takeError()));
  auto batch_sym = jit_->lookup(base + "_batch");
  if (!batch_sym) throw std::runtime_error("JIT: " + toString(batch_sym.takeError()));
  CompiledCone c;
  c.one = one_sym->toPtr<ConeFn>();
  c.batch = batch_sym->toPtr<ConeBatchFn>();
  c.n_inputs = p.inputs.size(), c.n_outputs = p.outputs.size();
  c.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace gs

extern "C" gs::JitBackend* gs_jit_backend_create() { return new gs::LlvmBackend(); }
