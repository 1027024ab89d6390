#include "runtime/research/artifact.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/research/split.h"

namespace gs::research {
namespace {
[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }
}  // namespace

const char* requirement_status_name(RequirementStatus s) {
  switch (s) {
    case RequirementStatus::satisfied: return "satisfied";
    case RequirementStatus::failed: return "failed";
    case RequirementStatus::unresolved: return "unresolved";
    case RequirementStatus::not_applicable: return "not_applicable";
  }
  return "?";
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

RunArtifact build_run_artifact(const ExperimentProtocol& protocol, RunInputs in) {
  if (in.stage == Stage::designed) fail("a run cannot be at stage 'designed'");
  for (const auto& [name, v] : in.metrics)
    if (!std::isfinite(v)) fail("run metric '" + name + "' is not finite");
  if (auto both = overlap(in.calibration_observation_ids, in.evaluation_observation_ids); !both.empty())
    fail(fmt::format("run {}: observations used for both calibration and evaluation: {}", in.run_id, fmt::join(both, ", ")));
  for (const auto* ids : {&in.calibration_observation_ids, &in.evaluation_observation_ids})
    if (std::set<std::string>(ids->begin(), ids->end()).size() != ids->size()) fail("run " + in.run_id + " lists an observation twice");

  std::map<std::string, const EvidenceRequirementSpec*> specs;
  for (const auto& r : protocol.evidence_requirements) specs[r.requirement_id] = &r;
  std::map<std::string, RequirementResult> given;
  for (auto& r : in.requirement_results) {
    auto it = specs.find(r.requirement_id);
    if (it == specs.end()) fail("result for unknown requirement '" + r.requirement_id + "'");
    if (given.count(r.requirement_id)) fail("two results for requirement '" + r.requirement_id + "'");
    const auto& spec = *it->second;
    bool decided = r.status == RequirementStatus::satisfied || r.status == RequirementStatus::failed;
    if (decided && r.evidence_refs.empty()) fail("requirement " + r.requirement_id + ": a decided result needs evidence references");
    if (decided && in.stage < spec.earliest_resolvable_stage)
      fail(fmt::format("requirement {} cannot be decided before stage {}", r.requirement_id, stage_name(spec.earliest_resolvable_stage)));
    if (r.status == RequirementStatus::not_applicable && !r.scope_reason) fail("requirement " + r.requirement_id + ": not_applicable needs a scope reason");
    if (r.status == RequirementStatus::satisfied) {
      for (const auto& m : spec.required_metrics)
        if (!in.metrics.count(m)) fail("requirement " + r.requirement_id + " is satisfied without its metric '" + m + "'");
      for (const auto& p : spec.required_panels)
        if (!r.panel_results.count(p)) fail("requirement " + r.requirement_id + " is satisfied without panel '" + p + "'");
    }
    if (r.status == RequirementStatus::failed && !spec.required_panels.empty()) {
      bool any_failed = false;
      for (const auto& [panel, status] : r.panel_results) any_failed |= status == "failed";
      if (!any_failed) fail("requirement " + r.requirement_id + " failed but no panel says so");
    }
    given[r.requirement_id] = r;
  }
  RunArtifact a;
  for (const auto& spec : protocol.evidence_requirements) {
    auto it = given.find(spec.requirement_id);
    a.inputs.requirement_results.push_back(
        it != given.end() ? it->second
                          : RequirementResult{spec.requirement_id, RequirementStatus::unresolved,
                                              fmt::format("not evaluated; earliest resolvable stage is {}",
                                                          stage_name(spec.earliest_resolvable_stage)),
                                              {}, {}, {}});
  }
  for (const auto& f : protocol.falsifiers) {
    FalsifierResult r{f.falsifier_id, f.metric, {}, {}, "metric was not reported"};
    if (auto it = in.metrics.find(f.metric); it != in.metrics.end()) {
      r.observed = it->second;
      r.survived = f.survives(it->second);
      r.reason = *r.survived ? "threshold survived" : "threshold falsified";
    }
    a.falsifiers.push_back(r);
  }
  auto results = std::move(a.inputs.requirement_results);
  a.inputs = std::move(in);
  a.inputs.requirement_results = std::move(results);
  a.protocol_snapshot = protocol.to_json();
  a.protocol_hash = protocol.hash();

  bool failed = false, incomplete = !a.inputs.evidence_gaps.empty();
  for (const auto& f : a.falsifiers) {
    failed |= f.survived == false;
    incomplete |= !f.survived.has_value();
  }
  for (const auto& r : a.inputs.requirement_results) {
    if (!specs.at(r.requirement_id)->mandatory) continue;  // optional evidence never decides a run
    failed |= r.status == RequirementStatus::failed;
    incomplete |= r.status == RequirementStatus::unresolved || r.status == RequirementStatus::not_applicable;
  }
  bool virtual_stage = a.inputs.stage == Stage::virtual_;
  if (failed) {
    a.verdict = Verdict::fail;
    a.conclusion = virtual_stage ? "failed_virtual_screen" : "falsified";
  } else if (incomplete || a.falsifiers.empty()) {
    a.verdict = Verdict::inconclusive;
    a.conclusion = "inconclusive";
  } else {
    a.verdict = Verdict::pass;
    a.conclusion = virtual_stage ? std::string("survived_virtual_screen") : fmt::format("survived_{}", stage_name(a.inputs.stage));
  }
  return a;
}

Json RunArtifact::to_json() const {
  Json fs = Json::array(), rs = Json::array(), fids = Json::array(), rids = Json::array(), mandatory = Json::array();
  for (const auto& f : falsifiers) {
    fs.push_back({{"falsifier_id", f.falsifier_id}, {"metric", f.metric},
                  {"observed_value", f.observed ? Json(*f.observed) : Json(nullptr)},
                  {"survived", f.survived ? Json(*f.survived) : Json(nullptr)}, {"reason", f.reason}});
    fids.push_back(f.falsifier_id);
  }
  for (const auto& r : inputs.requirement_results) {
    rs.push_back({{"requirement_id", r.requirement_id}, {"status", requirement_status_name(r.status)}, {"reason", r.reason},
                  {"evidence_refs", r.evidence_refs}, {"panel_results", r.panel_results},
                  {"scope_reason", r.scope_reason ? Json(*r.scope_reason) : Json(nullptr)}});
    rids.push_back(r.requirement_id);
  }
  for (const auto& r : protocol_snapshot.at("evidence_requirements"))
    if (r.at("mandatory").get<bool>()) mandatory.push_back(r.at("requirement_id"));
  Json metrics = Json::object();
  for (const auto& [k, v] : inputs.metrics) metrics[k] = v;
  return {{"schema", "gpu-stack.experiment-run.v1"}, {"run_id", inputs.run_id}, {"protocol_hash", protocol_hash},
          {"protocol", protocol_snapshot}, {"experiment_id", protocol_snapshot.at("experiment_id")},
          {"stage", stage_name(inputs.stage)}, {"policy", inputs.policy}, {"scenario_id", inputs.scenario_id},
          {"metrics", metrics}, {"falsifiers", fs}, {"protocol_falsifier_ids", fids}, {"evidence_requirements", rs},
          {"protocol_requirement_ids", rids}, {"mandatory_requirement_ids", mandatory},
          {"calibration_observation_ids", inputs.calibration_observation_ids},
          {"evaluation_observation_ids", inputs.evaluation_observation_ids}, {"assumptions", inputs.assumptions},
          {"evidence_gaps", inputs.evidence_gaps}, {"trace_uri", inputs.trace_uri ? Json(*inputs.trace_uri) : Json(nullptr)},
          {"metadata", inputs.metadata}, {"verdict", verdict_name(verdict)}, {"conclusion", conclusion}};
}

}  // namespace gs::research
