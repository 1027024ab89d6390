// The project's TOML data files (zoo key maps, the estimate's accelerators, serving bindings and
// comparisons): one reader, so a syntax error reads the same everywhere, as FILE:LINE:COL with a hint.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

namespace gs {

// Parses `path`; a missing file or malformed TOML throws PresetError ("FILE:LINE:COL: malformed TOML: ...").
toml::table read_toml_file(const std::string& path);
// Parses text read from `path` (for callers that read the file themselves); errors as read_toml_file.
toml::table parse_toml_text(const std::string& text, const std::string& path);
// The strings of an array node (other items and a missing node give nothing).
std::vector<std::string> toml_strings(const toml::node* n);

}  // namespace gs
