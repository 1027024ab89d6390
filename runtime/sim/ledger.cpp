#include "runtime/sim/ledger.h"

namespace gs::sim {

research::Json WorkLedger::to_json() const {
  return {{"unit", "token"}, {"attempted", attempted}, {"committed", committed}, {"lost", lost()},
          {"lost_rollback", lost_rollback}, {"lost_interrupted", lost_interrupted}, {"lost_truncated", lost_truncated},
          {"conserved", conserved()}};
}

research::Json TimeLedger::to_json() const {
  auto s = [](int64_t ns) { return double(ns) / 1e9; };
  return {{"compute_committed_s", s(compute_committed)}, {"compute_lost_s", s(compute_lost)}, {"checkpoint_s", s(checkpoint)},
          {"sync_s", s(sync)}, {"detection_s", s(detection)}, {"waiting_s", s(waiting)}, {"restart_s", s(restart)},
          {"reconfigure_s", s(reconfigure)}, {"paused_s", s(paused)}};
}

}  // namespace gs::sim
