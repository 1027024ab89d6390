// `gstackc fmt`: the canonical layout of a .gstack file. The author's line breaks and comments are kept;
// everything else about whitespace is decided here, from the token stream and the parse tree:
//   - a declaration (and its `///` doc lines) starts in column 1; its continuation lines are indented
//     4 spaces, plus 4 per bracket still open at the start of the line (piecewise pieces get 8);
//   - tokens on a line are separated by one space, except: none inside a unit (`mJ/cm^2`), inside
//     brackets and parentheses at their ends, before `,` `;` `)` `]`, after a prefix sign, before the `(`
//     of a call, an assumption or a distribution, and before the `:` of a relation;
//   - a comment on its own line takes the indentation of the line after it; one after code is set two
//     spaces after it;
//   - no trailing spaces, at most two blank lines in a row, none at the start or end, one final newline.
// Formatting is idempotent and changes only whitespace: the token sequence is the same before and after.
#pragma once

#include <optional>
#include <string>

#include "compiler/diagnostics.h"

namespace gs::compiler {

// The formatted text, or nothing when the file does not parse (the errors are added to `diags`).
std::optional<std::string> format_source(const SourceFile& src, Diagnostics& diags);

}  // namespace gs::compiler
