// The template pass: `template NAME(params) { vars and relations }` plus `instance LOCAL = NAME(param:
// arg, ...)` stamp out ordinary declarations before any name is resolved or unit checked, so the image,
// the runtime and `trace` see only plain variables and relations.
#pragma once

#include <vector>

#include "compiler/ast.h"

namespace gs::compiler {

// Replaces every instance with the declarations its template expands to, in place, and drops the
// templates. Problems (unknown template or parameter, a missing argument, a string where a name belongs)
// are E-TEMPLATE diagnostics.
void expand_templates(std::vector<AFile>& files, Diagnostics& diags);

}  // namespace gs::compiler
