// The event queue and loop at the heart of the simulator.
//
// Time is integer nanoseconds (a 54-day run is 4.7e15 ns, far inside int64), so ordering never depends on
// floating-point rounding. Events at the same instant run in a fixed order: first by priority class
// (completions before disruptions before observations, so work that ends exactly when a failure strikes
// counts as done), then by the order in which they were scheduled. Handlers cancel nothing: an event
// carries the generation of its target, and a handler ignores an event whose generation is stale.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gs::sim {

enum class Priority : uint8_t { completion = 0, disruption = 1, observation = 2, horizon = 3 };

// 32 bytes, so two fit in a cache line.
struct Event {
  int64_t time = 0;    // when it happens
  uint64_t order = 0;  // priority class in the top byte, scheduling sequence below
  uint32_t target = 0; // job, node, flow, site ... by kind
  uint32_t gen = 0;    // target generation at scheduling time
  uint16_t kind = 0;
  uint16_t arg = 0;    // small payload (e.g. a failure class)
};

class EventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  uint64_t scheduled() const { return seq_; }

  // An event may never be scheduled before its cause (the current time of whoever schedules it): that is
  // the causality invariant, checked here where it could first be broken, and again by the loop, which
  // counts any event that would run before the current time.
  void push(int64_t time, int64_t cause, Priority p, uint16_t kind, uint32_t target, uint32_t gen, uint16_t arg = 0) {
    if (time < cause) throw std::logic_error("causality: event scheduled before its cause");
    Event e{time, (uint64_t(p) << 56) | seq_++, target, gen, kind, arg};
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {  // sift up, moving parents down into the hole
      size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  Event pop() {
    Event top = heap_.front(), last = heap_.back();
    heap_.pop_back();
    size_t n = heap_.size(), i = 0;
    if (n == 0) return top;
    for (;;) {  // sift the last event down from the root
      size_t child = kArity * i + 1;
      if (child >= n) break;
      size_t best = child;
      for (size_t c = child + 1; c < std::min(child + kArity, n); ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return top;
  }

 private:
  // A 4-ary heap: shallower than a binary one, and a node's children share a cache line or two. Keys
  // (time, order) are unique, so the pop order is fully determined whatever the heap's shape.
  static constexpr size_t kArity = 4;
  static bool before(const Event& a, const Event& b) { return a.time != b.time ? a.time < b.time : a.order < b.order; }
  std::vector<Event> heap_;
  uint64_t seq_ = 0;
};

struct LoopStats {
  uint64_t events = 0;
  uint64_t causality_violations = 0;  // events out of time order; must stay 0
  int64_t now = 0;
  bool capped = false;  // stopped at max_events with events still queued
};

// Runs events in order until the queue is empty, the handler returns false, or max_events have run
// (then `capped` is set). The handler is a template parameter so the dispatch inlines; the simulator and
// the event-rate benchmark both use this loop.
template <class Handler>
LoopStats run_events(EventQueue& q, Handler& handle, int64_t start = 0, uint64_t max_events = UINT64_MAX) {
  LoopStats st;
  st.now = start;
  while (!q.empty()) {
    if (st.events >= max_events) {
      st.capped = true;
      break;
    }
    Event e = q.pop();
    if (e.time < st.now) ++st.causality_violations;
    st.now = e.time;
    ++st.events;
    if (!handle(e)) break;
  }
  return st;
}

}  // namespace gs::sim
