// The `symbol "…"` clause of a variable: a short math name (η_gemm, MFU) that the tools print beside
// the dotted name and accept wherever a name is (a target, an --assign, a preset key).
#pragma once

#include <string>
#include <string_view>

namespace gs::compiler {

// Longest symbol, in characters: a symbol is an abbreviation, not a second description.
inline constexpr size_t kMaxSymbolChars = 24;

// Why `text` cannot be a symbol, or "" when it can. A symbol is non-empty, at most kMaxSymbolChars
// characters, printable, and has no space, '=' or ',' (those separate names and values on a command
// line: --assign η=0.5,x=1).
std::string symbol_problem(std::string_view text);

}  // namespace gs::compiler
