#include "runtime/research/canonical_json.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "image/image.h"

namespace gs::research {
namespace {

void append_escaped(std::string& out, const std::string& s) {
  static const char* hex = "0123456789abcdef";
  auto u16 = [&](unsigned v) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += hex[(v >> shift) & 0xF];
  };
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) u16(c); else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence; nlohmann has already rejected malformed input on parse.
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    unsigned cp = c & (0x3F >> extra);
    for (int k = 1; k <= extra && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += extra + 1;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      u16(0xD800 + (cp >> 10));
      u16(0xDC00 + (cp & 0x3FF));
    } else {
      u16(cp);
    }
  }
  out += '"';
}

void dump(const Json& v, std::string& out, int indent, int depth) {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  switch (v.type()) {
    case Json::value_t::null: out += "null"; return;
    case Json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return;
    case Json::value_t::number_integer: out += std::to_string(v.get<int64_t>()); return;
    case Json::value_t::number_unsigned: out += std::to_string(v.get<uint64_t>()); return;
    case Json::value_t::number_float: out += format_double(v.get<double>()); return;
    case Json::value_t::string: append_escaped(out, v.get_ref<const std::string&>()); return;
    case Json::value_t::array: {
      if (v.empty()) { out += "[]"; return; }
      out += '[';
      bool first = true;
      for (const auto& item : v) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        dump(item, out, indent, depth + 1);
      }
      newline(depth);
      out += ']';
      return;
    }
    case Json::value_t::object: {
      if (v.empty()) { out += "{}"; return; }
      out += '{';
      bool first = true;
      for (const auto& [key, item] : v.items()) {  // std::map order: bytewise, i.e. code point order
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        append_escaped(out, key);
        out += indent < 0 ? ":" : ": ";
        dump(item, out, indent, depth + 1);
      }
      newline(depth);
      out += '}';
      return;
    }
    default: throw std::invalid_argument("canonical JSON: binary values have no canonical form");
  }
}

}  // namespace

std::string format_double(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("canonical JSON: NaN and infinity are not allowed");
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // e.g. "-1.2345e+02": shortest digits that round-trip
  std::string sign;
  if (sci[0] == '-') { sign = "-"; sci.erase(0, 1); }
  size_t epos = sci.find('e');
  int exp10 = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (size_t i = 0; i < epos; ++i)
    if (sci[i] != '.') digits += sci[i];
  int n = static_cast<int>(digits.size());
  if (exp10 >= -4 && exp10 < 16) {  // plain notation
    std::string s;
    if (exp10 < 0) {
      s = "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
    } else if (exp10 + 1 >= n) {
      s = digits + std::string(static_cast<size_t>(exp10 + 1 - n), '0') + ".0";
    } else {
      s = digits.substr(0, static_cast<size_t>(exp10 + 1)) + "." + digits.substr(static_cast<size_t>(exp10 + 1));
    }
    return sign + s;
  }
  std::string mant = n == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
  std::string e = std::to_string(exp10 < 0 ? -exp10 : exp10);
  if (e.size() < 2) e = "0" + e;
  return sign + mant + "e" + (exp10 < 0 ? "-" : "+") + e;
}

std::string canonical_dump(const Json& value) {
  std::string out;
  dump(value, out, -1, 0);
  return out;
}

std::string pretty_dump(const Json& value) {
  std::string out;
  dump(value, out, 2, 0);
  out += '\n';
  return out;
}

std::string canonical_sha256(const Json& value) {
  std::string bytes = canonical_dump(value);
  return gs::sha256_hex(bytes.data(), bytes.size());
}

}  // namespace gs::research
