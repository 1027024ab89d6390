// The discrete-event virtual datacenter: runs a scenario to its horizon (or until every job is done).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "runtime/sim/result.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

struct SimOptions {
  uint64_t seed = 0;
  std::optional<Recovery> recovery;  // replaces every job's recovery policy (comparisons on one trace)
  uint64_t max_events = UINT64_MAX;  // work cap: stop with WorkCapError after this many events
  bool timeline = false;             // record the per-event timeline and per-site utilisation
  // false: the declared failure classes still set the policies' priors, but no failure is drawn (the
  // matched no-failure run that recovery debt is measured against).
  bool realise_failures = true;
};

// A replica stopped at SimOptions::max_events before its horizon: bad input (too much work asked), not
// a broken invariant.
struct WorkCapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs one replica. Failure arrivals, repairs, stragglers and maintenance draw from separate seeded
// streams, so two policies run with the same seed face the same failure trace. Throws std::logic_error
// when an invariant breaks (work not conserved, time not partitioned, an event before its cause).
SimResult simulate(const Scenario& scenario, const SimOptions& options);

}  // namespace gs::sim
