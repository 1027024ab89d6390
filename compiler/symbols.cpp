#include "compiler/symbols.h"

#include <cstdint>
#include <cstdio>

namespace gs::compiler {
namespace {

// Spaces of every width: they would split a symbol on a command line or make two symbols look alike.
bool is_space(uint32_t cp) {
  return cp == 0x20 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

bool is_control(uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

}  // namespace

std::string symbol_problem(std::string_view text) {
  if (text.empty()) return "is empty";
  size_t chars = 0;
  // The file is valid UTF-8 (E-ENCODING is checked first), so each lead byte gives its sequence length.
  for (size_t i = 0; i < text.size(); ++chars) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    uint32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
    for (size_t k = 1; k < len && i + k < text.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (is_control(cp)) {
      char code[8];
      std::snprintf(code, sizeof code, "%04X", unsigned(cp));
      return std::string("contains a control character (U+") + code + ")";
    }
    if (is_space(cp)) return "contains a space";
    if (cp == '=' || cp == ',') return std::string("contains '") + char(cp) + "'";
    i += len;
  }
  if (chars > kMaxSymbolChars)
    return "is " + std::to_string(chars) + " characters long (at most " + std::to_string(kMaxSymbolChars) + ")";
  return "";
}

}  // namespace gs::compiler
