// Turns simulation results into the JSON the `simulate` command prints (its text is runtime/present/sim.h).
// The JSON is canonical (sorted keys, fixed number format) and holds no wall-clock data, so equal runs give
// equal bytes.
#pragma once

#include <string>
#include <vector>

#include "runtime/research/canonical_json.h"
#include "runtime/sim/result.h"

namespace gs::sim {

// The energy accounting boundary, stated in every result: what the energy figures include and exclude.
research::Json energy_boundary();

research::Json result_to_json(const SimResult& r);

// Several replicas of one scenario (different seeds): per-replica headline numbers and their spread.
research::Json replicas_to_json(const std::vector<SimResult>& runs);

// Headline numbers of one run, over all its jobs.
struct Headline {
  double committed_tokens = 0, attempted_tokens = 0, lost_tokens = 0, goodput_tokens_per_s = 0, ettr = 0;
  double it_energy_j = 0, facility_energy_j = 0, interruptions = 0, lost_gpu_hours = 0;
  std::optional<double> energy_cost_usd, gpu_cost_usd;
};
Headline headline(const SimResult& r);

// What the replicas report reads from one run: flat numbers, so that MPI ranks exchange these instead of
// whole results (simulate --replicas under mpirun, runtime/sim/commands.cpp).
struct ReplicaSummary {
  uint64_t seed = 0;
  Headline headline;
  bool work_conserved = true, time_partitioned = true;
  uint64_t causality_violations = 0;
};
ReplicaSummary replica_summary(const SimResult& r);
research::Json replicas_to_json(const std::vector<ReplicaSummary>& runs, const std::string& scenario_id, const std::string& scenario_hash);

}  // namespace gs::sim
