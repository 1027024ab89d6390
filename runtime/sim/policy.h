// Recovery policies and the only view of the world they get.
//
// A policy is consulted at explicit decision epochs (run start, a committed checkpoint, a finished
// inter-site synchronisation, an observed failure, returned capacity, a maintenance notice) and sees an
// Observation: what the job's own telemetry and the scheduler could know at that instant. It never sees
// the simulator's future (the next failure time, how long a repair will take, which node fails next), and
// it cannot act between epochs. The declared priors it may use (MTBF from the scenario's sourced failure
// data, the median repair time) come from the scenario's inputs, not from the realised trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/sim/scenario.h"

namespace gs::sim {

enum class Epoch : uint8_t { start, checkpoint_committed, sync_completed, failure_observed, capacity_returned, maintenance_notice };
const char* epoch_name(Epoch e);

struct Observation {
  Epoch epoch = Epoch::start;
  int64_t now_ns = 0;
  // Progress.
  uint64_t frontier_step = 0, durable_step = 0, memory_step = 0, target_steps = 0;
  bool memory_checkpoint_usable = false;  // every shard of the last peer-memory checkpoint survives
  bool restore_pending = false;           // the job had not finished loading a checkpoint
  // Membership.
  uint32_t replicas = 0, replicas_active = 0, replicas_restorable = 0;  // restorable: all nodes present
  uint32_t slots_vacant = 0, spares_available = 0;
  // The interruption being handled (failure_observed only).
  bool failure_removed_node = false;  // false for software faults: nothing to replace
  std::string failure_category;
  // Telemetry.
  uint32_t failures_observed = 0;
  double elapsed_s = 0;                      // since the job started
  double step_s = 0;                         // duration of the last completed step
  double checkpoint_write_s = 0;             // last durable write, or the uncontended estimate before the first
  double memory_write_s = 0;                 // blocking part of a peer-memory checkpoint (in_memory only)
  double restore_s = 0;                      // estimated restore from durable storage, uncontended
  double collective_phase_fraction = 0;      // last synchronisation / (its compute cycle + itself)
  bool sync_observed = false;
  uint32_t local_steps = 1;
  // Declared priors.
  double prior_mtbf_s = 0, prior_repair_s = 0;
  // Power: a site of the job is under a facility power limit (a grid or cooling limit the operator is told
  // of), and whether the job already runs its boards at its declared cap.
  bool power_limited = false, power_capped = false;
  // Costs of the options, from the job's inputs.
  double restart_overhead_s = 0, reconfig_s = 0, rejoin_transfer_s = 0, memory_restore_s = 0;
};

enum class RecoveryAction : uint8_t { none, restore_durable, restore_memory, continue_elastic };
const char* action_name(RecoveryAction a);

// A board power cap as a policy action: keep the current setting, run at the job's declared capped
// operating point (JobSpec::power_cap), or lift the cap.
enum class PowerCapAction : uint8_t { keep, cap, lift };
const char* power_cap_name(PowerCapAction a);

struct Decision {
  uint32_t checkpoint_interval_steps = 0;  // 0: keep the current interval
  uint32_t local_steps = 0;                // 0: keep
  RecoveryAction recovery = RecoveryAction::none;
  bool use_spares = true;     // take hot spares for vacant slots (false: wait for the nodes' own repair)
  bool rejoin = false;        // bring restorable replicas back into the job
  bool checkpoint_now = false;
  // Migration (failure_observed): a replica its own site cannot refill moves to another site of the job
  // with spares for all of it; its share of the state crosses the WAN before the restart.
  bool migrate = false;
  PowerCapAction power_cap = PowerCapAction::keep;
  // Parallelism reconfiguration (a reconfiguring policy's continuation or rejoin): the job changes its
  // data-parallel degree, at the declared cost, and runs at the model's step time for the new degree.
  bool reconfigure = false;
  bool abstained = false;     // the adaptive policy was outside its calibrated range and acted as the baseline
};

// What a policy needs from the job's inputs and its own settings; empty when it has everything. The
// scenario checks its own policies, the engine checks a recovery that replaces them.
std::string policy_prerequisites_missing(const PolicySpec& policy, const WorkloadInputs& workload);

// The features the adaptive policy's calibration envelope may bound.
//   replica_loss_fraction  share of replicas not intact at the failure
//   exposure               uncheckpointed compute time / MTBF estimate
//   mtbf_drift             MTBF estimate / declared MTBF
bool is_envelope_feature(const std::string& name);

class Policy {
 public:
  // `intervals`: the model's Young and Daly rules; required when the cadence is young or daly (throws
  // std::invalid_argument otherwise).
  explicit Policy(PolicySpec spec, std::shared_ptr<const CheckpointIntervals> intervals = nullptr);
  const PolicySpec& spec() const { return spec_; }
  Decision decide(const Observation& o);

 private:
  uint32_t cadence_steps(const Observation& o, double mtbf_s) const;
  double mtbf_estimate(const Observation& o) const;
  uint32_t foresight_steps(const Observation& o, double delta) const;
  RecoveryAction choose_recovery(const Observation& o, bool& abstained) const;
  PolicySpec spec_;
  std::shared_ptr<const CheckpointIntervals> intervals_;
};

}  // namespace gs::sim
