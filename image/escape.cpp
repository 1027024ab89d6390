#include "image/escape.h"

namespace gs {

std::string escape_control(const std::string& s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (((c < 0x20 && c != '\t' && !(keep_newlines && c == '\n'))) || c == 0x7F) {
      static const char* digits = "0123456789ABCDEF";
      out += "\\x", out += digits[c >> 4], out += digits[c & 15];
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace gs
