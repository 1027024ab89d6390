// Shared bandwidth: storage systems, WAN links and per-site transfer interfaces as resources that every
// concurrent transfer divides. A transfer (checkpoint write, restore, collective, state transfer) crosses
// one or more resources and moves at the smallest equal share among them, recomputed whenever a transfer
// starts or ends on one of its resources. This equal-share rule is simpler than max-min fairness and never
// faster than it; it is what makes two sites checkpointing to one store slow each other down.
#pragma once

#include <cstdint>
#include <vector>

namespace gs::sim {

class Network {
 public:
  uint32_t add_resource(double capacity_bytes_per_s);

  // A completion time that changed: the caller schedules (flow, gen) at `time`; older events of the same
  // flow carry a stale generation and are ignored.
  struct Reschedule {
    uint32_t flow = 0, gen = 0;
    int64_t time = 0;
  };

  // Starts a transfer of `bytes` over `resources` (may be empty: then only `latency_ns` passes).
  uint32_t start(int64_t now, double bytes, std::vector<uint32_t> resources, int64_t latency_ns, uint32_t owner,
                 std::vector<Reschedule>& out);
  // Ends a transfer early (its owner was interrupted). Returns the bytes it had moved.
  double cancel(int64_t now, uint32_t flow, std::vector<Reschedule>& out);
  // Handles the event (flow, gen). Stale events return false. When the bytes have arrived the transfer
  // leaves its resources (the others speed up) and, if it has a latency, waits that long in flight: that
  // also returns false, with the final event in `out`. True means the transfer is complete.
  bool complete(int64_t now, uint32_t flow, uint32_t gen, std::vector<Reschedule>& out);

  // Valid until the next start(): a finished flow's id is reused (its generation keeps counting, so events
  // of the earlier transfer stay stale).
  uint32_t owner(uint32_t flow) const { return flows_[flow].owner; }
  double bytes(uint32_t flow) const { return flows_[flow].total; }

 private:
  struct Resource {
    double capacity = 0;
    std::vector<uint32_t> active;  // flows, ascending id
  };
  struct Flow {
    double total = 0, remaining = 0, rate = 0;
    int64_t last = 0, latency_ns = 0;
    std::vector<uint32_t> resources;
    uint32_t owner = 0, gen = 0;
    bool active = false, in_flight = false;  // in_flight: bytes sent, only the latency remains
    uint64_t serial = 0;  // start order: rates are recomputed in it, whatever ids were reused
  };
  void advance(Flow& f, int64_t now);
  void recompute(int64_t now, const std::vector<uint32_t>& touched, std::vector<Reschedule>& out);
  void detach(uint32_t flow);

  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_;      // ids of finished flows, reused so memory stays bounded by concurrent flows
  std::vector<uint32_t> affected_;  // scratch for recompute
  uint64_t started_ = 0;
};

}  // namespace gs::sim
