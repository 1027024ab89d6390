// The event queue: time order, a fixed order within an instant, and causality.
#include <doctest/doctest.h>

#include <vector>

#include "runtime/sim/event_queue.h"

using namespace gs::sim;

TEST_CASE("events run by time, then priority class, then scheduling order") {
  EventQueue q;
  q.push(20, 0, Priority::completion, 1, 0, 0);
  q.push(10, 0, Priority::observation, 2, 0, 0);
  q.push(10, 0, Priority::disruption, 3, 0, 0);
  q.push(10, 0, Priority::completion, 4, 0, 0);
  q.push(10, 0, Priority::disruption, 5, 0, 0);
  std::vector<uint16_t> order;
  auto handler = [&](const Event& e) {
    order.push_back(e.kind);
    return true;
  };
  LoopStats st = run_events(q, handler);
  CHECK(order == std::vector<uint16_t>{4, 3, 5, 2, 1});
  CHECK(st.events == 5);
  CHECK(st.causality_violations == 0);
  CHECK(st.now == 20);
}

TEST_CASE("an event cannot be scheduled before its cause") {
  EventQueue q;
  CHECK_THROWS_AS(q.push(5, 6, Priority::completion, 0, 0, 0), std::logic_error);
  CHECK_NOTHROW(q.push(6, 6, Priority::completion, 0, 0, 0));
}

TEST_CASE("a handler schedules follow-ups and can stop the loop") {
  EventQueue q;
  q.push(0, 0, Priority::completion, 0, 0, 0);
  int64_t now = 0;
  auto handler = [&](const Event& e) {
    now = e.time;
    if (e.time < 100) q.push(e.time + 7, e.time, Priority::completion, 0, 0, 0);
    return e.time < 50;
  };
  LoopStats st = run_events(q, handler);
  CHECK(now == 56);
  CHECK(st.events == 9);
}
