// Work accounting in whole tokens, so that conservation is an exact identity and not a tolerance:
//   attempted = committed + lost
// where attempted counts every token a job processed (complete steps and the processed part of steps
// that were cut short), committed counts the tokens in the job's final valid state, and lost splits by
// reason. The identity is checked at the end of every run; a violation is a hard error.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/research/canonical_json.h"

namespace gs::sim {

struct WorkLedger {
  uint64_t attempted = 0;
  uint64_t lost_rollback = 0;     // complete steps discarded by a restore to an older checkpoint
  uint64_t lost_interrupted = 0;  // processed part of steps cut short by a failure, outage or preemption
  uint64_t lost_truncated = 0;    // processed part of the step in flight when the horizon ended the run
  uint64_t committed = 0;         // set once at the end: final frontier x tokens per step

  uint64_t lost() const { return lost_rollback + lost_interrupted + lost_truncated; }
  bool conserved() const { return attempted == committed + lost(); }
  research::Json to_json() const;
};

// Where a job's wall-clock time went, in nanoseconds. The buckets partition the time from the job's start
// to its completion or the end of the run, which every run checks as a second exact identity.
struct TimeLedger {
  int64_t compute_committed = 0;  // steps that survived to the final state
  int64_t compute_lost = 0;       // steps rolled back, interrupted or truncated
  int64_t checkpoint = 0, sync = 0, detection = 0, waiting = 0, restart = 0, reconfigure = 0, paused = 0;
  int64_t total() const {
    return compute_committed + compute_lost + checkpoint + sync + detection + waiting + restart + reconfigure + paused;
  }
  research::Json to_json() const;
};

}  // namespace gs::sim
