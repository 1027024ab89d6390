// verify: the model's health gates, run in process against a loaded image.
//
// Both profiles check: dependency cycles (a cycle of identities is a failure; one that passes through
// a variant or approximation depends on the selection and is a warning), unit and reference coverage,
// well-formed expressions that name only registered variables, constraints and validity conditions that
// are true or false whatever the inputs, the constants rule (docs/language.md), that every preset
// loads, and that the image matches the model sources it was compiled from (SHA-256 per file). `full`
// adds that every preset's [targets] resolve to its [expected] values, and JIT-versus-GiNaC agreement
// for every value relation on sampled points that respect the variables' declared domains.
//
// Two counts of the reference implementation's `audit` are warnings in both profiles: orphan variables
// (declared, but in no relation and no preset) and large model source files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/registry.h"

namespace gs {

struct VerifyRequest {
  std::string profile = "fast";  // fast or full
  std::string image_path;        // shown in the report
  std::string presets_dir;       // empty: the preset check only warns that there is none
  size_t samples = 3;            // points per relation in the JIT check
  uint64_t seed = 2024;
  double tolerance = 1e-9;       // relative, JIT versus GiNaC
  // A model source file with at least this many lines is counted as large (a warning, never a failure).
  // 700 is the reference implementation's default for the same count, kept so the two compare.
  size_t large_file_lines = 700;
};

struct VerifyCheck {
  std::string name;
  std::string status;  // ok, warn, fail, skip (not run: an earlier check found the image unsound)
  std::string summary;
  std::vector<std::string> details;
  double seconds = 0;
  std::optional<size_t> count;  // for the counting checks (orphans, file-size): how many findings
};

// Throws PresetError for an unknown profile.
std::vector<VerifyCheck> verify_checks(const Registry& reg, const VerifyRequest& req);

// `verify`: every check of the profile, counted; the command exits 1 when one failed.
struct VerifyReport {
  std::string profile, image;
  size_t variables = 0, relations = 0;
  std::vector<VerifyCheck> checks;
  size_t large_file_lines = 0;
  size_t ok = 0, warnings = 0, failed = 0, skipped = 0;
  double seconds = 0;
  bool passed() const { return failed == 0; }
};
void to_json(nlohmann::ordered_json& j, const VerifyReport& r);
VerifyReport verify(const Registry& reg, const VerifyRequest& req);

}  // namespace gs
