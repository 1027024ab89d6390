// Run artifacts: what one policy did under one frozen protocol, and what that means for the hypothesis
// (anchor-research.md §4.3–4.4). Gates are evaluated from the protocol snapshot the artifact carries, never
// from live code, so a later edit to a protocol cannot change the verdict of an old run.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/research/protocol.h"

namespace gs::research {

enum class RequirementStatus { satisfied, failed, unresolved, not_applicable };
const char* requirement_status_name(RequirementStatus s);

struct RequirementResult {
  std::string requirement_id;
  RequirementStatus status = RequirementStatus::unresolved;
  std::string reason;
  std::vector<std::string> evidence_refs;            // required for satisfied and failed
  std::map<std::string, std::string> panel_results;  // panel -> status name
  std::optional<std::string> scope_reason;           // required for not_applicable
};

struct FalsifierResult {
  std::string falsifier_id, metric;
  std::optional<double> observed;
  std::optional<bool> survived;  // absent when the metric was not reported
  std::string reason;
};

// The three outcomes the issue asks for. Failure takes precedence over incompleteness: a falsified
// threshold or a failed mandatory requirement fails the run even when other evidence is missing.
enum class Verdict { pass, fail, inconclusive };
const char* verdict_name(Verdict v);

struct RunInputs {
  std::string run_id;
  Stage stage = Stage::virtual_;
  std::string policy, scenario_id;
  std::map<std::string, double> metrics;  // finite values only
  std::vector<RequirementResult> requirement_results;
  std::vector<std::string> calibration_observation_ids, evaluation_observation_ids;
  std::vector<std::string> assumptions, evidence_gaps;
  std::optional<std::string> trace_uri;
  Json metadata = Json::object();
};

struct RunArtifact {
  RunInputs inputs;  // requirement results completed with `unresolved` for every requirement left out
  std::string protocol_hash;
  Json protocol_snapshot;
  std::vector<FalsifierResult> falsifiers;
  Verdict verdict = Verdict::inconclusive;
  std::string conclusion;  // survived_virtual_screen, failed_virtual_screen, inconclusive, survived_<stage>, falsified
  Json to_json() const;
};

// Checks the inputs against the protocol (stage, known and unique requirement ids, stage gates, required
// metrics and panels for satisfied results, disjoint calibration and evaluation ids, finite metrics),
// evaluates every falsifier and draws the conclusion. Throws std::invalid_argument.
RunArtifact build_run_artifact(const ExperimentProtocol& protocol, RunInputs inputs);

}  // namespace gs::research
