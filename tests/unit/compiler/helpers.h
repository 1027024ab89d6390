// Shared helpers for the compiler tests: compile in-memory model text after the real units prelude
// (and optionally the physics system), and look things up in the result.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/compile.h"

namespace gs::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline const std::string& units_prelude() {
  static const std::string text = read_text(GSTACK_SOURCE_DIR "/model/00_units.gstack");
  return text;
}

inline const std::string& physics_prelude() {
  static const std::string text = read_text(GSTACK_SOURCE_DIR "/model/01_physics.gstack");
  return text;
}

// Compiles `body` as the file "t.gstack" after the units prelude (and the physics system if asked).
inline compiler::CompileResult compile_text(const std::string& body, bool with_physics = false,
                                            const std::string& name = "t.gstack") {
  std::vector<compiler::SourceFile> sources;
  sources.push_back(compiler::SourceFile::from_text("00_units.gstack", units_prelude()));
  if (with_physics) sources.push_back(compiler::SourceFile::from_text("01_physics.gstack", physics_prelude()));
  sources.push_back(compiler::SourceFile::from_text(name, body));
  return compiler::compile_sources(sources);
}

// Compiles and requires success; prints the diagnostics if there were any.
inline Image compile_ok(const std::string& body, bool with_physics = false) {
  auto r = compile_text(body, with_physics);
  INFO(r.diagnostics.render_text());
  REQUIRE(r.image.has_value());
  return *r.image;
}

// The first diagnostic of a compile that must fail.
inline compiler::Diagnostic first_error(const std::string& body, bool with_physics = false) {
  auto r = compile_text(body, with_physics);
  REQUIRE_FALSE(r.image.has_value());
  REQUIRE_FALSE(r.diagnostics.all().empty());
  return r.diagnostics.all().front();
}

inline const Variable& var(const Image& img, const std::string& name) {
  for (const auto& v : img.vars)
    if (v.name == name) return v;
  throw std::runtime_error("no variable " + name);
}

inline const Relation& rel(const Image& img, const std::string& name) {
  for (const auto& r : img.relations)
    if (r.name == name) return r;
  throw std::runtime_error("no relation " + name);
}

inline uint32_t var_id(const Image& img, const std::string& name) {
  for (uint32_t i = 0; i < img.vars.size(); ++i)
    if (img.vars[i].name == name) return i;
  throw std::runtime_error("no variable " + name);
}

inline std::vector<std::string> var_names(const Image& img) {
  std::vector<std::string> names;
  for (const auto& v : img.vars) names.push_back(v.name);
  return names;
}

// The unit table that the prelude declares.
inline const UnitTable& prelude_units() {
  static const UnitTable table = [] {
    auto r = compile_text("system t\n");
    if (!r.image) throw std::runtime_error("units prelude does not compile:\n" + r.diagnostics.render_text());
    return r.image->units;
  }();
  return table;
}

}  // namespace gs::testing
