#include "image/units.h"

#include <cctype>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

namespace gs {

Rational Rational::make(int64_t n, int64_t d) {
  if (d == 0) throw std::domain_error("rational with zero denominator");
  if (d < 0) n = -n, d = -d;
  int64_t g = std::gcd(n < 0 ? -n : n, d);
  if (g == 0) g = 1;
  n /= g, d /= g;
  // Narrowing silently would wrap, and a wrapped denominator can become zero or negative.
  if (n > INT32_MAX || n < -INT32_MAX || d > INT32_MAX) throw std::overflow_error("dimension exponent out of range");
  return {int32_t(n), int32_t(d)};
}

std::string Rational::str() const {
  if (den == 1) return std::to_string(num);
  std::string s = "(";
  return s.append(std::to_string(num)).append("/").append(std::to_string(den)).append(")");
}

Dim Dim::base(size_t index) {
  Dim d;
  d.exps.assign(index + 1, Rational{});
  d.exps[index] = Rational{1, 1};
  return d;
}

void Dim::trim() {
  while (!exps.empty() && exps.back().is_zero()) exps.pop_back();
}

Dim Dim::operator*(const Dim& o) const {
  Dim r;
  r.exps.assign(std::max(exps.size(), o.exps.size()), Rational{});
  for (size_t i = 0; i < exps.size(); ++i) r.exps[i] = r.exps[i] + exps[i];
  for (size_t i = 0; i < o.exps.size(); ++i) r.exps[i] = r.exps[i] + o.exps[i];
  r.trim();
  return r;
}

Dim Dim::operator/(const Dim& o) const { return *this * o.pow(Rational{-1, 1}); }

Dim Dim::pow(Rational p) const {
  Dim r = *this;
  for (auto& e : r.exps) e = e * p;
  r.trim();
  return r;
}

void UnitTable::index() {
  by_name_.clear();
  prefix_by_name_.clear();
  for (size_t i = 0; i < units.size(); ++i) by_name_[units[i].name] = i;
  for (size_t i = 0; i < prefixes.size(); ++i) prefix_by_name_[prefixes[i].name] = i;
}

std::optional<Quantity> UnitTable::lookup(const std::string& name) const {
  if (auto it = by_name_.find(name); it != by_name_.end()) return Quantity{units[it->second].scale, units[it->second].dim};
  // Longest prefix first so "Ki" wins over "K" if both exist.
  for (size_t len = std::min<size_t>(name.size() - 1, 3); len >= 1 && name.size() > 1; --len) {
    auto p = prefix_by_name_.find(name.substr(0, len));
    if (p == prefix_by_name_.end()) continue;
    auto u = by_name_.find(name.substr(len));
    if (u == by_name_.end()) continue;
    return Quantity{prefixes[p->second].factor * units[u->second].scale, units[u->second].dim};
  }
  return std::nullopt;
}

std::vector<std::string> UnitTable::all_names() const {
  std::vector<std::string> names;
  for (const auto& u : units) names.push_back(u.name);
  return names;
}

std::string UnitTable::describe(const Dim& d) const {
  if (d.dimensionless()) return "1";
  // Positive exponents first, so "USD·s^-1" reads as a rate.
  std::string out;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < d.exps.size(); ++i) {
      if (d.exps[i].is_zero() || (d.exps[i].num > 0) != (pass == 0)) continue;
      std::string symbol = i < dimension_names.size() ? dimension_names[i] : std::string("dim").append(std::to_string(i));
      for (const auto& u : units)
        if (u.scale == 1 && u.dim == Dim::base(i)) {
          symbol = u.name;
          break;
        }
      if (!out.empty()) out += "·";
      out += symbol;
      if (!(d.exps[i] == Rational{1, 1})) out += "^" + d.exps[i].str();
    }
  }
  return out;
}

namespace {

// Recursive-descent parser for unit expressions:
//   expr := term (('*'|'/') term)* ; term := atom ('^' exponent)? ;
//   atom := NAME | '1' | '(' expr ')' ; exponent := ['-'] INT | '(' ['-'] INT ['/' INT] ')'
class UnitParser {
 public:
  UnitParser(const UnitTable& t, const std::string& s) : table_(t), s_(s) {}

  std::optional<Quantity> run(std::string* error, size_t* offset) {
    try {
      Quantity q = expr();
      skip();
      if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
      return q;
    } catch (const std::runtime_error& e) {
      if (error) *error = e.what();
      if (offset) *offset = pos_;
      return std::nullopt;
    }
  }

 private:
  const UnitTable& table_;
  const std::string& s_;
  size_t pos_ = 0;
  static constexpr size_t kMaxDepth = 256;
  size_t depth_ = 0;

  [[noreturn]] void fail(const std::string& msg) { throw std::runtime_error(msg); }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  Quantity expr() {
    Quantity q = term();
    for (;;) {
      if (eat('*') || eat('.')) {
        Quantity r = term();
        q = {q.scale * r.scale, q.dim * r.dim};
      } else if (eat('/')) {
        Quantity r = term();
        q = {q.scale / r.scale, q.dim / r.dim};
      } else {
        return q;
      }
    }
  }
  int64_t integer() {
    skip();
    bool neg = eat('-');
    skip();
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (start == pos_) fail("expected an integer exponent");
    if (pos_ - start > 9) fail("exponent too large");  // std::stoll would throw out_of_range
    int64_t v = std::stoll(s_.substr(start, pos_ - start));
    return neg ? -v : v;
  }
  Rational exponent() {
    if (eat('(')) {
      int64_t n = integer(), d = 1;
      if (eat('/')) d = integer();
      if (!eat(')')) fail("expected ')' after the exponent");
      if (d == 0) fail("zero denominator in exponent");
      return Rational::make(n, d);
    }
    return Rational::make(integer(), 1);
  }
  Quantity term() {
    Quantity q = atom();
    if (eat('^')) {
      Rational p = exponent();
      q = {std::pow(q.scale, double(p.num) / p.den), q.dim.pow(p)};
    }
    return q;
  }
  Quantity atom() {
    skip();
    if (eat('(')) {
      // Preset strings reach this parser unchecked, so bound the recursion here too.
      if (++depth_ > kMaxDepth) fail("unit expression nested too deeply");
      Quantity q = expr();
      if (!eat(')')) fail("expected ')'");
      --depth_;
      return q;
    }
    if (pos_ < s_.size() && s_[pos_] == '1') {
      ++pos_;
      return Quantity{};
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
                                (pos_ > start && std::isdigit(static_cast<unsigned char>(s_[pos_])))))
      ++pos_;
    if (start == pos_) fail(pos_ < s_.size() ? "unexpected '" + std::string(1, s_[pos_]) + "'" : "expected a unit");
    std::string name = s_.substr(start, pos_ - start);
    auto q = table_.lookup(name);
    if (!q) {
      pos_ = start;
      fail("unknown unit '" + name + "'");
    }
    return *q;
  }
};

}  // namespace

std::optional<Quantity> UnitTable::parse(const std::string& text, std::string* error, size_t* offset) const {
  return UnitParser(*this, text).run(error, offset);
}

bool split_quantity(const std::string& text, double& value, std::string& unit_text) {
  const char* begin = text.c_str();
  while (std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  char* end = nullptr;
  value = std::strtod(begin, &end);
  if (end == begin) return false;
  unit_text = end;
  auto first = unit_text.find_first_not_of(" \t");
  unit_text = first == std::string::npos ? "" : unit_text.substr(first);
  auto last = unit_text.find_last_not_of(" \t");
  if (last != std::string::npos) unit_text.resize(last + 1);
  return true;
}

}  // namespace gs
