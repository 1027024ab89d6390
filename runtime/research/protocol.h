// Experiment protocols, frozen before any run (anchor-research.md §4.1–4.2).
//
// A protocol states the question, the hypothesis, the metrics, the scalar falsifiers and the non-scalar
// evidence requirements. Its hash is SHA-256 over the canonical JSON of its normalised form, so any edit
// to a word, a threshold or the order of a list changes it. Protocols live in experiments/E00N/protocol.json
// next to protocol.sha256, the hash pinned when the protocol was frozen; loading refuses a protocol whose
// content no longer matches its pin.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/research/canonical_json.h"

namespace gs::research {

enum class Stage { designed, virtual_, shadow, controlled, validated };
const char* stage_name(Stage s);
Stage parse_stage(const std::string& s);  // throws std::invalid_argument

enum class Comparison { lt, le, gt, ge, between };

struct MetricSpec {
  std::string name, unit, description;
  bool primary = false;
};

struct FalsifierSpec {
  std::string falsifier_id, metric;
  Comparison op = Comparison::ge;
  double threshold = 0;
  std::optional<double> upper_threshold;  // only with `between`, inclusive on both ends
  std::string description;
  // "Survives" means the hypothesis is still alive at this value. A non-finite value never survives.
  bool survives(double value) const;
  std::string rule_text() const;  // "ge 0.95" or "between 0.85 .. 0.95"
};

struct EvidenceRequirementSpec {
  std::string requirement_id, kind, description;
  Stage earliest_resolvable_stage = Stage::virtual_;
  std::string acceptance_rule, evidence_boundary;
  std::vector<std::string> required_metrics, required_panels, comparison_baselines;
  bool mandatory = true;
};

struct ExperimentProtocol {
  std::string schema_version = "2.0";
  std::string experiment_id, title, question, hypothesis;
  std::vector<std::string> baselines;
  std::vector<MetricSpec> metrics;
  std::vector<FalsifierSpec> falsifiers;
  std::vector<std::string> independent_variables, held_out_dimensions, real_validation_requirements;
  std::string seed_policy, source_window;
  std::vector<EvidenceRequirementSpec> evidence_requirements;
  std::vector<std::string> notes;

  // The rules of §4.1: non-blank text, non-empty lists, unique ids, falsifier and requirement ids
  // disjoint, every referenced metric declared, every primary metric covered by a falsifier or a
  // mandatory requirement. Throws std::invalid_argument.
  void validate() const;
  Json to_json() const;
  std::string hash() const;  // canonical_sha256(to_json())
  static ExperimentProtocol from_json(const Json& j);  // validates
  const MetricSpec* metric(const std::string& name) const;
};

// Reads <experiments_dir>/<ID>/protocol.json (the id is matched case-insensitively) and checks it
// against <ID>/protocol.sha256. Throws std::runtime_error when the files are missing or the hash
// disagrees (the protocol was edited after it was frozen).
ExperimentProtocol load_frozen_protocol(const std::string& experiments_dir, const std::string& experiment_id);
// Ids of the experiments with a protocol.json under the directory, sorted.
std::vector<std::string> list_protocols(const std::string& experiments_dir);

}  // namespace gs::research
