// The one TOML parser of the project's data files (presets, simulator scenarios and bindings, the
// validation mapping table, zoo key maps, the estimate's accelerators, serving bindings and comparisons):
// a syntax error reads the same everywhere, "FILE:LINE:COL: malformed TOML: WHAT; hint: ...".
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace gs {

// Parses `text` read from `path`; on a syntax error returns nothing and sets `error` to the message above.
std::optional<toml::table> try_parse_toml(const std::string& text, const std::string& path, std::string& error);

// As try_parse_toml, throwing `Error(message)`: each reader keeps its own error type, never its own parser.
template <class Error>
toml::table parse_toml_text_as(const std::string& text, const std::string& path) {
  std::string error;
  std::optional<toml::table> doc = try_parse_toml(text, path, error);
  if (!doc) throw Error(error);
  return std::move(*doc);
}

// Parses `path`; a missing file or malformed TOML throws PresetError.
toml::table read_toml_file(const std::string& path);
// parse_toml_text_as<PresetError>, for callers that read the file themselves.
toml::table parse_toml_text(const std::string& text, const std::string& path);
// The strings of an array node (other items and a missing node give nothing).
std::vector<std::string> toml_strings(const toml::node* n);

}  // namespace gs
