#include "image/expr.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>

namespace gs {

namespace {
constexpr std::array<FuncInfo, 15> kFuncs{{
    {"exp", 1, 1, true},   {"log", 1, 1, true},  {"sqrt", 1, 1, false}, {"sin", 1, 1, true},
    {"cos", 1, 1, true},   {"tan", 1, 1, true},  {"tanh", 1, 1, true},  {"atan", 1, 1, true},
    {"abs", 1, 1, false},  {"min", 2, 16, false}, {"max", 2, 16, false}, {"floor", 1, 1, true},
    {"ceil", 1, 1, true},  {"log2", 1, 1, true}, {"log10", 1, 1, true},
}};
}  // namespace

const FuncInfo& func_info(Func f) { return kFuncs.at(static_cast<size_t>(f)); }

bool func_by_name(const std::string& name, Func& out) {
  for (size_t i = 0; i < kFuncs.size(); ++i)
    if (name == kFuncs[i].name) return out = static_cast<Func>(i), true;
  if (name == "ln") return out = Func::Log, true;
  return false;
}

std::vector<uint32_t> expr_variables(const Expr& e) {
  std::vector<uint32_t> ids;
  for (const auto& n : e.nodes)
    if (n.op == Op::Var) ids.push_back(n.index);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

const char* op_token(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Pow: return "^";
    case Op::Neg: return "neg";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Not: return "not";
    default: return "?";
  }
}

int op_precedence(Op op) {
  switch (op) {
    case Op::Or: return 1;
    case Op::And: return 2;
    case Op::Not: return 3;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: return 4;
    case Op::Add: case Op::Sub: return 5;
    case Op::Mul: case Op::Div: return 6;
    case Op::Neg: return 7;
    case Op::Pow: return 8;
    default: return 9;
  }
}

namespace {

// Binary operators that the printer spaces (" + ", " <= ", " and "); products and powers stay tight.
std::string symbol(Op op) {
  const bool tight = op == Op::Mul || op == Op::Div || op == Op::Pow;
  return tight ? std::string(op_token(op)) : " " + std::string(op_token(op)) + " ";
}

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(15);
  os << v;
  return os.str();
}

}  // namespace

std::string render(const Expr& e, const std::vector<std::string>& names) {
  struct Item {
    std::string text;
    int prec;
  };
  std::vector<Item> st;
  auto pop = [&] {
    if (st.empty()) throw std::runtime_error("malformed expression");
    Item i = std::move(st.back());
    st.pop_back();
    return i;
  };
  auto wrap = [](const Item& i, int prec) { return i.prec < prec ? "(" + i.text + ")" : i.text; };
  for (const auto& n : e.nodes) {
    switch (n.op) {
      case Op::Num: st.push_back({number_text(n.value), n.value < 0 ? 7 : 9}); break;
      case Op::Var: st.push_back({n.index < names.size() ? names[n.index] : "?", 9}); break;
      case Op::Local: st.push_back({"_" + std::to_string(n.index), 9}); break;
      case Op::Neg: { Item a = pop(); st.push_back({"-" + wrap(a, 7), 7}); break; }
      case Op::Not: { Item a = pop(); st.push_back({"not " + wrap(a, 3), 3}); break; }
      case Op::Call: {
        std::vector<Item> args(n.count);
        for (size_t i = n.count; i-- > 0;) args[i] = pop();
        std::string t = std::string(func_info(static_cast<Func>(n.index)).name) + "(";
        for (size_t i = 0; i < args.size(); ++i) t += (i ? ", " : "") + args[i].text;
        st.push_back({t + ")", 9});
        break;
      }
      case Op::Piecewise: {
        std::vector<Item> args(n.count);
        for (size_t i = n.count; i-- > 0;) args[i] = pop();
        std::string t = "piecewise { ";
        for (size_t i = 0; i + 1 < args.size(); i += 2) t += args[i].text + " if " + args[i + 1].text + "; ";
        st.push_back({t + args.back().text + " otherwise }", 9});
        break;
      }
      default: {
        Item b = pop(), a = pop();
        int p = op_precedence(n.op);
        bool right_assoc = n.op == Op::Pow;
        std::string left = wrap(a, right_assoc ? p + 1 : p);
        std::string right = wrap(b, (n.op == Op::Sub || n.op == Op::Div || right_assoc) ? p + 1 : p);
        if (n.op == Op::Pow && b.prec == 9 && !b.text.empty() && b.text[0] == '-') right = "(" + b.text + ")";
        st.push_back({left + symbol(n.op) + right, p});
      }
    }
  }
  if (st.size() != 1) return "<malformed>";
  return st.back().text;
}

}  // namespace gs
