#include "runtime/sim/policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "runtime/sim/interval_model.h"

namespace gs::sim {

const char* epoch_name(Epoch e) {
  switch (e) {
    case Epoch::start: return "start";
    case Epoch::checkpoint_committed: return "checkpoint_committed";
    case Epoch::sync_completed: return "sync_completed";
    case Epoch::failure_observed: return "failure_observed";
    case Epoch::capacity_returned: return "capacity_returned";
    case Epoch::maintenance_notice: return "maintenance_notice";
  }
  return "?";
}

const char* action_name(RecoveryAction a) {
  switch (a) {
    case RecoveryAction::none: return "none";
    case RecoveryAction::restore_durable: return "restore_durable";
    case RecoveryAction::restore_memory: return "restore_memory";
    case RecoveryAction::continue_elastic: return "continue_elastic";
  }
  return "?";
}

const char* power_cap_name(PowerCapAction a) {
  switch (a) {
    case PowerCapAction::keep: return "keep";
    case PowerCapAction::cap: return "cap";
    case PowerCapAction::lift: return "lift";
  }
  return "?";
}

std::string policy_prerequisites_missing(const PolicySpec& p, const WorkloadInputs& w) {
  std::vector<std::string> missing;
  if (p.recovery == Recovery::elastic || p.recovery == Recovery::adaptive) {
    if (!w.reconfig_s) missing.push_back(model_variable_for("reconfig").name);
    if (!w.state_transfer_bw) missing.push_back(model_variable_for("state_transfer_bw").name);
    if (!(p.min_replica_fraction > 0 && p.min_replica_fraction <= 1)) missing.push_back("min_replica_fraction in (0, 1]");
  }
  if (p.recovery == Recovery::in_memory) {
    if (!w.memory_ckpt_s) missing.push_back(model_variable_for("memory_ckpt").name);
    if (!w.memory_restore_s) missing.push_back(model_variable_for("memory_restore").name);
    if (p.durable_every < 1) missing.push_back("durable_every >= 1");
    if (p.peer_group_nodes < 2) missing.push_back("peer_group >= 2");
  }
  if (p.recovery == Recovery::adaptive) {
    if (p.envelope.ranges.empty() || p.envelope.source.empty()) missing.push_back("a calibration envelope with its source");
    if (!(p.prior_failures > 0)) missing.push_back("prior_failures > 0");
  }
  std::string out;
  for (const auto& m : missing) out += (out.empty() ? "" : ", ") + m;
  return out;
}

bool is_envelope_feature(const std::string& name) {
  return name == "replica_loss_fraction" || name == "exposure" || name == "mtbf_drift";
}

Policy::Policy(PolicySpec spec, std::shared_ptr<const CheckpointIntervals> intervals)
    : spec_(std::move(spec)), intervals_(std::move(intervals)) {
  if ((spec_.cadence == Cadence::young || spec_.cadence == Cadence::daly) && !intervals_)
    throw std::invalid_argument(std::string("checkpoint = \"") + (spec_.cadence == Cadence::young ? "young" : "daly") +
                                "\" takes its interval from the model's [checkpoint_interval] relations (presets/sim/model-inputs.toml), "
                                "and this scenario was loaded without the model");
}

double Policy::mtbf_estimate(const Observation& o) const {
  if (spec_.recovery != Recovery::adaptive) return o.prior_mtbf_s;
  // Gamma-Poisson update of the failure rate: the declared MTBF counts as `prior_failures` failures
  // observed over prior_failures x MTBF seconds, and the job's own history is added to both.
  double a = spec_.prior_failures;
  return (a * o.prior_mtbf_s + o.elapsed_s) / (a + double(o.failures_observed));
}

uint32_t Policy::cadence_steps(const Observation& o, double mtbf_s) const {
  constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();
  double step = std::max(o.step_s, 1e-9);
  auto to_steps = [&](double seconds) {
    double n = std::round(seconds / step);
    return static_cast<uint32_t>(std::clamp(n, 1.0, double(kNever - 1)));
  };
  // In-memory checkpoints are the frequent level; their cost is the blocking memory write.
  double delta = spec_.recovery == Recovery::in_memory ? o.memory_write_s : o.checkpoint_write_s;
  if (spec_.oracle) return foresight_steps(o, delta);
  switch (spec_.cadence) {
    case Cadence::none: return kNever;
    case Cadence::fixed_steps: return static_cast<uint32_t>(spec_.cadence_value);
    case Cadence::fixed_time: return to_steps(spec_.cadence_value);
    case Cadence::young: return mtbf_s > 0 && std::isfinite(mtbf_s) ? to_steps(intervals_->young(delta, mtbf_s)) : kNever;
    case Cadence::daly: return mtbf_s > 0 && std::isfinite(mtbf_s) ? to_steps(intervals_->daly(delta, mtbf_s)) : kNever;
  }
  return kNever;
}

// The oracle's cadence: as many steps as still let a checkpoint of cost delta commit before the next
// known interruption (none when no interruption is left: the target's final checkpoint is enough). When
// even one step and a write do not fit, it checkpoints nothing and decides again after the interruption.
// It is decided again at every completed synchronisation, as the measured cycle refines the timing.
uint32_t Policy::foresight_steps(const Observation& o, double delta) const {
  constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();
  auto next = std::upper_bound(spec_.foresight_ns.begin(), spec_.foresight_ns.end(), o.now_ns);
  if (next == spec_.foresight_ns.end()) return kNever;
  // A step's wall time includes its share of the synchronisation cycle; one cycle is kept in hand
  // because a checkpoint may have to wait for the synchronisation in flight.
  double wall_step = std::max(o.step_s, 1e-9) / std::max(1e-9, 1.0 - o.collective_phase_fraction);
  double budget_s = double(*next - o.now_ns) / 1e9 - delta - double(std::max<uint32_t>(1, o.local_steps)) * wall_step;
  double steps = std::floor(budget_s / wall_step);
  if (steps < 1) return kNever;
  // The interval counts steps since the last durable checkpoint.
  return static_cast<uint32_t>(std::min(steps + double(o.frontier_step - o.durable_step), double(kNever - 1)));
}

RecoveryAction Policy::choose_recovery(const Observation& o, bool& abstained) const {
  auto restore = [&] { return o.memory_checkpoint_usable && spec_.recovery == Recovery::in_memory ? RecoveryAction::restore_memory
                                                                                                 : RecoveryAction::restore_durable; };
  bool can_continue = o.failure_removed_node && !o.restore_pending && o.replicas > 0 &&
                      double(o.replicas_active) >= spec_.min_replica_fraction * double(o.replicas) && o.replicas_active > 0;
  switch (spec_.recovery) {
    case Recovery::restart:
    case Recovery::wait_restore:
    case Recovery::in_memory: return restore();
    case Recovery::elastic: return can_continue ? RecoveryAction::continue_elastic : restore();
    case Recovery::adaptive: break;
  }
  double mtbf = mtbf_estimate(o);
  double at_risk_s = double(o.frontier_step - o.durable_step) * o.step_s;
  double features[3] = {1.0 - double(o.replicas_active) / double(std::max<uint32_t>(1, o.replicas)),
                        mtbf > 0 ? at_risk_s / mtbf : 0, o.prior_mtbf_s > 0 ? mtbf / o.prior_mtbf_s : 1};
  for (const auto& r : spec_.envelope.ranges) {
    double v = r.feature == "replica_loss_fraction" ? features[0] : r.feature == "exposure" ? features[1] : features[2];
    if (v < r.lo || v > r.hi) {
      abstained = true;
      return RecoveryAction::restore_durable;  // outside calibration: the baseline, and say so
    }
  }
  if (!can_continue) return RecoveryAction::restore_durable;
  bool spares_cover = o.spares_available >= o.slots_vacant;
  double wait = spares_cover ? 0 : o.prior_repair_s;
  double restart_cost = o.restart_overhead_s + o.restore_s + at_risk_s + wait;
  // Continuing costs a reconfiguration now, the lost replicas' throughput until they are back, and the
  // rejoin (state transfer plus a second reconfiguration).
  double lost_share = features[0];
  double elastic_cost = o.reconfig_s + lost_share * (wait + o.rejoin_transfer_s) + o.rejoin_transfer_s + o.reconfig_s;
  return elastic_cost < restart_cost ? RecoveryAction::continue_elastic : RecoveryAction::restore_durable;
}

Decision Policy::decide(const Observation& o) {
  Decision d;
  d.use_spares = spec_.recovery != Recovery::wait_restore;
  // The power-aware rule, at every epoch and without learning: capped exactly while a facility limit holds.
  if (spec_.power_aware && o.power_limited != o.power_capped) d.power_cap = o.power_limited ? PowerCapAction::cap : PowerCapAction::lift;
  switch (o.epoch) {
    case Epoch::start:
      d.local_steps = spec_.local_steps;
      d.checkpoint_interval_steps = cadence_steps(o, mtbf_estimate(o));
      break;
    case Epoch::checkpoint_committed:
      d.checkpoint_interval_steps = cadence_steps(o, mtbf_estimate(o));
      break;
    case Epoch::sync_completed:
      // The oracle re-times its next checkpoint as the measured cycle changes the wall time per step.
      if (spec_.oracle) d.checkpoint_interval_steps = cadence_steps(o, mtbf_estimate(o));
      if (spec_.sync == SyncMode::adaptive && o.sync_observed) {
        uint32_t cur = o.local_steps, target = cur;
        if (o.collective_phase_fraction >= spec_.sync_high) target = std::min(spec_.sync_max, std::max(cur + 1, 2 * cur));
        else if (o.collective_phase_fraction <= spec_.sync_low) target = std::max(spec_.sync_min, cur / 2);
        d.local_steps = target;
      }
      break;
    case Epoch::failure_observed:
      d.recovery = choose_recovery(o, d.abstained);
      d.migrate = spec_.migrate && (d.recovery == RecoveryAction::restore_durable || d.recovery == RecoveryAction::restore_memory);
      d.reconfigure = spec_.reconfigure && d.recovery == RecoveryAction::continue_elastic;
      d.checkpoint_interval_steps = cadence_steps(o, mtbf_estimate(o));
      break;
    case Epoch::capacity_returned:
      d.rejoin = (spec_.recovery == Recovery::elastic || spec_.recovery == Recovery::adaptive) && o.replicas_restorable > 0;
      d.reconfigure = spec_.reconfigure && d.rejoin;
      break;
    case Epoch::maintenance_notice:
      d.checkpoint_now = spec_.cadence != Cadence::none;
      break;
  }
  return d;
}

}  // namespace gs::sim
