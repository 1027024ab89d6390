// Prints the syntax tree back as .gstack text, for `gstackc check --dump-after=PASS`: what a pass hands
// to the next one (after expand_templates, every instance as the plain declarations it became).
#pragma once

#include <string>
#include <vector>

#include "compiler/ast.h"

namespace gs::compiler {

std::string print_expr(const AExpr& e);
std::string print_decl(const ADecl& d);
// One block per file: a comment with its path, the system line, its uses and its declarations.
std::string print_files(const std::vector<AFile>& files);

}  // namespace gs::compiler
