// Helpers for tests that need a small compiled model: compile .gstack text after the real units
// system, look variables up, and turn the relations into a cone program in declaration order.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "runtime/jit/jit.h"

namespace gs::testing {

inline Image compile_with_units(const std::string& body) {
  std::ifstream in(std::string(GSTACK_SOURCE_DIR) + "/model/00_units.gstack");
  std::stringstream units;
  units << in.rdbuf();
  auto r = compiler::compile_sources({compiler::SourceFile::from_text("00_units.gstack", units.str()),
                                      compiler::SourceFile::from_text("t.gstack", body)});
  INFO(r.diagnostics.render_text());
  REQUIRE(r.image);
  return *r.image;
}

inline uint32_t var_id(const Image& img, const std::string& name) {
  for (uint32_t i = 0; i < img.vars.size(); ++i)
    if (img.vars[i].name == name) return i;
  FAIL("no variable " << name);
  return 0;
}

// One step per value relation, in declaration order (test models are written in dependency order).
inline ConeProgram program(const Image& img, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  ConeProgram p;
  for (const auto& n : inputs) p.inputs.push_back(var_id(img, n));
  for (const auto& r : img.relations)
    if (r.role != Role::Constraint) p.steps.push_back({uint32_t(r.lhs_var), r.rhs});
  for (const auto& n : outputs) p.outputs.push_back(var_id(img, n));
  return p;
}

}  // namespace gs::testing
