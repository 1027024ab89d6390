// The discrete-event virtual datacenter: runs a scenario to its horizon (or until every job is done).
#pragma once

#include <optional>

#include "runtime/sim/result.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

struct SimOptions {
  uint64_t seed = 0;
  std::optional<Recovery> recovery;  // replaces every job's recovery policy (comparisons on one trace)
  bool timeline = false;             // record the per-event timeline and per-site utilisation
};

// Runs one replica. Failure arrivals, repairs, stragglers and maintenance draw from separate seeded
// streams, so two policies run with the same seed face the same failure trace. Throws std::logic_error
// when an invariant breaks (work not conserved, time not partitioned, an event before its cause).
SimResult simulate(const Scenario& scenario, const SimOptions& options);

}  // namespace gs::sim
