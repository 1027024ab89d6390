// The registry: a loaded image plus the indexes the runtime queries it by (names, systems, prefixes,
// kinds), and the counts `gpu-stack stats` shows.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "image/image.h"

namespace gs {

// What a variable is for the resolver: a constant, a root input (nothing can give it a value, so a
// scenario must assign it) or derived (some relation can).
enum class VarKind : uint8_t { Constant, Root, Derived };
const char* var_kind_name(VarKind k);

// Whether a relation can give its left side a value. Constraints only bound; differential relations
// are traced but never integrated; a stochastic relation defines a value only through its mean.
bool defines_value(const Relation& r);

// "training.mfu (MFU)": the dotted name with the variable's symbol, where it has one.
std::string labeled_name(const Variable& v);

struct RegistryStats {
  size_t systems = 0, variables = 0, constants = 0, relations = 0, root_inputs = 0, leaves = 0;
};

struct RegistryCoverage {
  size_t non_constant_variables = 0, with_references = 0, with_description = 0;
  size_t relations = 0, relations_with_references = 0, relations_unit_checked = 0;
  size_t by_role[6] = {};  // indexed by Role
};

class Registry {
 public:
  explicit Registry(Image img);
  // Maps the file (load_image_file) and checks it (format version, hash, ids). Throws ImageError.
  // When a model source listed in the image changed after it was compiled, warns on stderr (once per
  // load) that the image is stale; the image is still used.
  static Registry load(const std::string& path);
  // The name indexes view the image's own strings: moving keeps them valid, copying would not.
  Registry(Registry&&) = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  const Image& image() const { return img_; }
  const UnitTable& units() const { return img_.units; }
  size_t var_count() const { return img_.vars.size(); }
  size_t relation_count() const { return img_.relations.size(); }
  const Variable& var(uint32_t id) const { return img_.vars[id]; }
  const Relation& relation(uint32_t id) const { return img_.relations[id]; }
  const std::vector<std::string>& var_names() const { return var_names_; }

  // A variable by its dotted name or by its symbol (`symbol "MFU"`).
  std::optional<uint32_t> find_var(std::string_view name) const;
  std::optional<uint32_t> find_relation(std::string_view name) const;
  std::optional<uint32_t> find_system(std::string_view name) const;
  // What the model exports under `role` ("headline", "question", "breakdown", "input"; see `export` in
  // docs/language.md), in declaration order: the tools read model names from here, not from C++ literals.
  std::vector<Export> exports(std::string_view role) const;

  std::vector<uint32_t> by_system(uint32_t system) const;
  std::vector<uint32_t> by_prefix(std::string_view prefix) const;  // sorted by name
  std::vector<uint32_t> by_kind(VarKind kind) const;
  VarKind kind(uint32_t var) const { return kinds_[var]; }
  std::vector<uint32_t> roots() const { return by_kind(VarKind::Root); }
  std::vector<uint32_t> constants() const { return by_kind(VarKind::Constant); }
  std::vector<uint32_t> leaves() const;  // read by no relation at all (constraints count)

  std::span<const uint32_t> defined_by(uint32_t var) const;
  std::span<const uint32_t> used_in(uint32_t var) const;
  std::span<const uint32_t> relation_deps(uint32_t rel) const;
  // Relations with `var` as their left side (not constraints), in image order.
  std::vector<uint32_t> definitions(uint32_t var) const;
  // Whether some approximation names relation `rel` as its fallback: such a relation is used only
  // through that approximation, never selected on its own.
  bool is_fallback(uint32_t rel) const { return fallback_target_[rel] != 0; }
  // Constraints that mention `var` on either side, in image order.
  std::vector<uint32_t> constraints_on(uint32_t var) const;

  RegistryStats stats() const;
  RegistryCoverage coverage() const;
  // "model/25_economics.gstack:12:3"
  std::string location(const Span& s) const;

 private:
  static void warn_if_stale(const Image& img, const std::string& path);
  Image img_;
  std::string cwd_;  // for shorter source locations
  std::vector<std::string> var_names_;
  std::vector<uint32_t> sorted_vars_;  // ids ordered by name, for prefix queries
  std::vector<VarKind> kinds_;
  std::vector<uint8_t> fallback_target_;  // per relation: named as another's fallback
  std::unordered_map<std::string_view, uint32_t> var_index_, relation_index_, system_index_;
};

}  // namespace gs
