#include "runtime/toml_file.h"

#include "image/text_file.h"
#include "runtime/presets.h"

namespace gs {

toml::table read_toml_file(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path, "data file");
  } catch (const TextFileError& e) {
    throw PresetError(e.what());
  }
  return parse_toml_text(text, path);
}

std::optional<toml::table> try_parse_toml(const std::string& text, const std::string& path, std::string& error) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    error = path + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
            ": malformed TOML: " + std::string(e.description()) + "; hint: check the TOML syntax at that position";
    return std::nullopt;
  }
}

toml::table parse_toml_text(const std::string& text, const std::string& path) {
  return parse_toml_text_as<PresetError>(text, path);
}

std::vector<std::string> toml_strings(const toml::node* n) {
  std::vector<std::string> out;
  if (const toml::array* a = n ? n->as_array() : nullptr)
    for (const auto& item : *a)
      if (auto s = item.value<std::string>()) out.push_back(*s);
  return out;
}

}  // namespace gs
