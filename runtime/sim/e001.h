// E001 "Beyond one datacenter": the virtual mechanics screen of anchor-research.md §3.1, ported onto this
// simulator. Three policies run the same multi-site training job: synchronous global all-reduce, a fixed
// local-update cadence and an adaptive cadence that reads only completed-cycle evidence. The scenario
// keeps the reference's JSON schema (screening-scenario v1, §6.4) plus `seed`, `tokens_per_step` and
// `sources`; docs/experiments.md lists the differences in semantics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/research/protocol.h"
#include "runtime/sim/result.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

struct E001Scenario {
  research::Json raw;  // the file as read, validated
  uint64_t seed = 0;
  std::vector<std::string> evaluation_ids, prior_seed_ids;
  Scenario for_policy(const std::string& policy) const;  // the simulator scenario one policy runs
  std::string id() const { return raw.at("scenario_id").get<std::string>(); }
};

E001Scenario load_e001_scenario(const research::Json& j);  // throws std::invalid_argument

// Runs the three policies and returns the result payload (not yet sealed): the mechanics of every run and
// one run artifact per candidate policy under the frozen protocol.
research::Json run_e001(const research::ExperimentProtocol& protocol, const E001Scenario& sc, uint64_t seed);

}  // namespace gs::sim
