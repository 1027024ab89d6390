#include "runtime/jit/interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "image/eval.h"

namespace gs {
namespace {

// Where the value of a program variable lives while the interpreter is being built.
struct Slot {
  enum Kind { Const, Input, Reg } kind = Const;
  uint32_t index = 0;
  double value = 0;
};

// A value on the build-time stack: a constant (folded) or the code from `start` on that computes it.
struct Entry {
  bool constant = false;
  double value = 0;
  size_t start = 0;
};

double piecewise(const double* a, size_t n) {
  for (size_t i = 0; i + 1 < n; i += 2)
    if (a[i + 1] != 0) return a[i];
  return a[n - 1];
}

}  // namespace

ConeInterpreter::ConeInterpreter(const ConeProgram& p) : n_inputs_(p.inputs.size()) {
  if (auto err = cone_program_error(p); !err.empty()) throw std::runtime_error("interpreter: " + err);
  std::unordered_map<uint32_t, Slot> slots;
  for (size_t i = 0; i < p.inputs.size(); ++i) slots[p.inputs[i]] = {Slot::Input, uint32_t(i), 0};
  std::vector<Entry> st;
  std::vector<double> args;
  auto push_const = [&](double v) {
    st.push_back({true, v, code_.size()});
    code_.push_back({Code::Const, Op::Num, 0, 0, v});
  };
  for (const ConeStep& step : p.steps) {
    st.clear();
    for (const Node& n : step.expr.nodes) {
      if (n.op == Op::Num) {
        push_const(n.value);
        continue;
      }
      if (n.op == Op::Var) {
        const Slot& s = slots.at(n.index);
        if (s.kind == Slot::Const) push_const(s.value);
        else st.push_back({false, 0, code_.size()}), code_.push_back({s.kind == Slot::Input ? Code::Input : Code::Reg, Op::Num, s.index});
        continue;
      }
      const size_t k = postfix_pops(n);
      const Entry* a = st.data() + (st.size() - k);
      bool all_constant = true;
      for (size_t i = 0; i < k; ++i) all_constant = all_constant && a[i].constant;
      const size_t start = a[0].start;
      if (all_constant) {  // fold with the same kernels the run uses
        args.assign(k, 0);
        for (size_t i = 0; i < k; ++i) args[i] = a[i].value;
        double v = 0;
        switch (n.op) {
          case Op::Neg: v = -args[0]; break;
          case Op::Not: v = args[0] == 0; break;
          case Op::Pow: v = eval_pow_known_exponent(args[0], args[1]); break;
          case Op::Call: v = eval_func(Func(n.index), args.data(), k); break;
          case Op::Piecewise: v = piecewise(args.data(), k); break;
          default: v = eval_binary(n.op, args[0], args[1]);
        }
        st.resize(st.size() - k);
        code_.resize(start);
        push_const(v);
        continue;
      }
      Instr in{Code::Binary, n.op};
      switch (n.op) {
        case Op::Neg: in.code = Code::Neg; break;
        case Op::Not: in.code = Code::Not; break;
        case Op::Add: in.code = Code::Add; break;
        case Op::Sub: in.code = Code::Sub; break;
        case Op::Mul: in.code = Code::Mul; break;
        case Op::Div: in.code = Code::Div; break;
        case Op::Pow:
          if (a[1].constant) {  // an exponent known before the run, special-cased as the JIT does
            in = {Code::PowKnown, Op::Pow, 0, 0, a[1].value};
            code_.resize(a[1].start);
          }
          break;
        case Op::Call: in.code = Code::Call, in.index = n.index, in.count = n.count; break;
        case Op::Piecewise: in.code = Code::Piecewise, in.count = n.count; break;
        default: break;
      }
      code_.push_back(in);
      st.resize(st.size() - k);
      st.push_back({false, 0, start});
    }
    const Entry top = st.back();
    if (top.constant) {
      code_.resize(top.start);
      slots[step.var] = {Slot::Const, 0, top.value};
    } else {
      slots[step.var] = {Slot::Reg, uint32_t(n_regs_), 0};
      code_.push_back({Code::Store, Op::Num, uint32_t(n_regs_++)});
    }
  }
  for (uint32_t v : p.outputs) {
    const Slot& s = slots.at(v);
    outputs_.push_back({s.kind == Slot::Const ? Code::Const : s.kind == Slot::Input ? Code::Input : Code::Reg, s.index, s.value});
  }
  // The deepest the run-time stack gets (folding only shortens the code, so replaying it is exact).
  size_t depth = 0;
  for (const Instr& i : code_) {
    switch (i.code) {
      case Code::Const: case Code::Input: case Code::Reg: ++depth; break;
      case Code::Store: --depth; break;
      case Code::Neg: case Code::Not: case Code::PowKnown: break;
      case Code::Call: case Code::Piecewise: depth -= i.count - 1; break;
      default: --depth;
    }
    max_depth_ = std::max(max_depth_, depth);
  }
}

void ConeInterpreter::run(const double* in, double* out, double* regs, double* stack) const {
  double* sp = stack;  // one past the top
  for (const Instr& i : code_) {
    switch (i.code) {
      case Code::Const: *sp++ = i.value; break;
      case Code::Input: *sp++ = in[i.index]; break;
      case Code::Reg: *sp++ = regs[i.index]; break;
      case Code::Store: regs[i.index] = *--sp; break;
      case Code::Neg: sp[-1] = -sp[-1]; break;
      case Code::Not: sp[-1] = sp[-1] == 0; break;
      case Code::Add: --sp, sp[-1] = sp[-1] + sp[0]; break;
      case Code::Sub: --sp, sp[-1] = sp[-1] - sp[0]; break;
      case Code::Mul: --sp, sp[-1] = sp[-1] * sp[0]; break;
      case Code::Div: --sp, sp[-1] = sp[-1] / sp[0]; break;
      case Code::PowKnown: sp[-1] = eval_pow_known_exponent(sp[-1], i.value); break;
      case Code::Binary: --sp, sp[-1] = eval_binary(i.op, sp[-1], sp[0]); break;
      case Code::Call: sp -= i.count, *sp = eval_func(Func(i.index), sp, i.count), ++sp; break;
      case Code::Piecewise: sp -= i.count, *sp = piecewise(sp, i.count), ++sp; break;
    }
  }
  for (size_t o = 0; o < outputs_.size(); ++o) {
    const Output& x = outputs_[o];
    out[o] = x.from == Code::Const ? x.value : x.from == Code::Input ? in[x.index] : regs[x.index];
  }
}

void ConeInterpreter::one(const double* in, double* out) const { batch(in, out, 1); }

void ConeInterpreter::run_block(const double* in, double* out, size_t n, double* regs, double* stack) const {
  constexpr size_t B = kBlockRows;
  double* sp = stack;  // one block past the top; lane j of a slot at slot[j]
  for (const Instr& i : code_) {
    switch (i.code) {
      case Code::Const:
        for (size_t j = 0; j < n; ++j) sp[j] = i.value;
        sp += B;
        break;
      case Code::Input:
        for (size_t j = 0; j < n; ++j) sp[j] = in[j * n_inputs_ + i.index];
        sp += B;
        break;
      case Code::Reg: std::copy(regs + i.index * B, regs + i.index * B + n, sp), sp += B; break;
      case Code::Store: sp -= B, std::copy(sp, sp + n, regs + i.index * B); break;
      case Code::Neg: for (size_t j = 0; j < n; ++j) sp[j - B] = -sp[j - B]; break;
      case Code::Not: for (size_t j = 0; j < n; ++j) sp[j - B] = sp[j - B] == 0; break;
      case Code::PowKnown: for (size_t j = 0; j < n; ++j) sp[j - B] = eval_pow_known_exponent(sp[j - B], i.value); break;
      case Code::Call:
      case Code::Piecewise: {
        double args[64];  // operand counts are small; a longer call falls back to a heap copy
        std::vector<double> heap;
        double* a = i.count <= 64 ? args : (heap.resize(i.count), heap.data());
        sp -= i.count * B;
        for (size_t j = 0; j < n; ++j) {
          for (size_t k = 0; k < i.count; ++k) a[k] = sp[k * B + j];
          sp[j] = i.code == Code::Call ? eval_func(Func(i.index), a, i.count) : piecewise(a, i.count);
        }
        sp += B;
        break;
      }
      default: {  // binary: the top two slots into one
        sp -= B;
        double* __restrict x = sp - B;
        const double* __restrict y = sp;
        switch (i.code) {
          case Code::Add: for (size_t j = 0; j < n; ++j) x[j] = x[j] + y[j]; break;
          case Code::Sub: for (size_t j = 0; j < n; ++j) x[j] = x[j] - y[j]; break;
          case Code::Mul: for (size_t j = 0; j < n; ++j) x[j] = x[j] * y[j]; break;
          case Code::Div: for (size_t j = 0; j < n; ++j) x[j] = x[j] / y[j]; break;
          default: for (size_t j = 0; j < n; ++j) x[j] = eval_binary(i.op, x[j], y[j]);
        }
      }
    }
  }
  for (size_t o = 0; o < outputs_.size(); ++o) {
    const Output& x = outputs_[o];
    const size_t n_out = outputs_.size();
    for (size_t j = 0; j < n; ++j)
      out[j * n_out + o] = x.from == Code::Const ? x.value : x.from == Code::Input ? in[j * n_inputs_ + x.index] : regs[x.index * B + j];
  }
}

void ConeInterpreter::batch(const double* in, double* out, uint64_t rows) const {
  constexpr uint64_t kBlockFrom = 4;  // below this, lanes would mostly idle: run rows one by one
  if (rows < kBlockFrom) {
    constexpr size_t kLocal = 256;  // registers and stack of most cones fit on the machine stack
    double local[kLocal];
    std::vector<double> heap;
    double* scratch = local;
    if (n_regs_ + max_depth_ > kLocal) heap.resize(n_regs_ + max_depth_), scratch = heap.data();
    for (uint64_t r = 0; r < rows; ++r) run(in + r * n_inputs_, out + r * outputs_.size(), scratch, scratch + n_regs_);
    return;
  }
  std::vector<double> scratch((n_regs_ + max_depth_) * kBlockRows);
  for (uint64_t r = 0; r < rows; r += kBlockRows) {
    const size_t n = size_t(std::min<uint64_t>(kBlockRows, rows - r));
    run_block(in + r * n_inputs_, out + r * outputs_.size(), n, scratch.data(), scratch.data() + n_regs_ * kBlockRows);
  }
}

CompiledCone interpret(const ConeProgram& p) {
  const auto start = std::chrono::steady_clock::now();
  auto interp = std::make_shared<const ConeInterpreter>(p);
  CompiledCone c;
  c.one = [interp](const double* in, double* out) { interp->one(in, out); };
  c.batch = [interp](const double* in, double* out, uint64_t rows) { interp->batch(in, out, rows); };
  c.n_inputs = interp->n_inputs(), c.n_outputs = interp->n_outputs();
  c.evaluator = "interpreter";
  c.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace gs
