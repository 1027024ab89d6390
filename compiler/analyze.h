// Semantic analysis: name resolution, the load-order and relation-form rules, the unit checker, and
// lowering of every relation to the image's expression form.
#pragma once

#include <vector>

#include "compiler/ast.h"
#include "image/image.h"

namespace gs::compiler {

Image analyze(const std::vector<AFile>& files, Diagnostics& diags);

}  // namespace gs::compiler
