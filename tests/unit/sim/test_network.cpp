// Shared bandwidth: concurrent transfers divide a resource.
#include <doctest/doctest.h>

#include "runtime/sim/network.h"

using namespace gs::sim;

TEST_CASE("two transfers on one store share it, and the survivor speeds up") {
  Network net;
  uint32_t store = net.add_resource(10e9);  // 10 GB/s
  std::vector<Network::Reschedule> out;
  uint32_t a = net.start(0, 20e9, {store}, 0, 1, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].time == 2000000000);  // alone: 2 s
  out.clear();
  uint32_t b = net.start(1000000000, 5e9, {store}, 0, 2, out);  // at 1 s, a has 10 GB left
  REQUIRE(out.size() == 2);
  CHECK(out[0].flow == a);
  CHECK(out[0].time == 3000000000);  // 10 GB at 5 GB/s
  CHECK(out[1].flow == b);
  CHECK(out[1].time == 2000000000);  // 5 GB at 5 GB/s
  uint32_t gen_b = out[1].gen, gen_a_old = out[0].gen;
  out.clear();
  CHECK(net.complete(2000000000, b, gen_b, out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].time == 2500000000);  // a: 5 GB left, alone again at 10 GB/s
  CHECK_FALSE(net.complete(3000000000, a, gen_a_old, out));  // the stale completion is ignored
  CHECK(net.owner(b) == 2);
}

TEST_CASE("latency is paid once, after the bytes, off the shared resource") {
  Network net;
  uint32_t link = net.add_resource(1e9);
  std::vector<Network::Reschedule> out;
  uint32_t f = net.start(0, 1e9, {link}, 20000000, 0, out);
  CHECK(out.back().time == 1000000000);
  uint32_t gen = out.back().gen;
  out.clear();
  CHECK_FALSE(net.complete(1000000000, f, gen, out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].time == 1020000000);
  CHECK(net.complete(1020000000, f, out[0].gen, out));
}

TEST_CASE("a cancelled transfer reports what it moved and frees its share") {
  Network net;
  uint32_t r = net.add_resource(1e9);
  std::vector<Network::Reschedule> out;
  uint32_t a = net.start(0, 4e9, {r}, 0, 0, out);
  uint32_t b = net.start(0, 4e9, {r}, 0, 0, out);
  out.clear();
  CHECK(net.cancel(2000000000, a, out) == doctest::Approx(1e9));
  REQUIRE(out.size() == 1);
  CHECK(out[0].flow == b);
  CHECK(out[0].time == 5000000000);  // 3 GB left at the full 1 GB/s
}

TEST_CASE("a finished transfer's id is reused, and the old transfer's events stay stale") {
  Network net;
  uint32_t store = net.add_resource(1e9);
  std::vector<Network::Reschedule> out;
  uint32_t a = net.start(0, 1e9, {store}, 0, 7, out);
  uint32_t gen_a = out.back().gen;
  out.clear();
  CHECK(net.complete(1000000000, a, gen_a, out));
  uint32_t b = net.start(1000000000, 2e9, {store}, 0, 8, out);
  CHECK(b == a);  // memory is bounded by the transfers in flight, not by every transfer ever started
  CHECK(net.owner(b) == 8);
  REQUIRE(out.size() == 1);
  CHECK(out[0].gen > gen_a);
  CHECK(out[0].time == 3000000000);  // 2 GB alone at 1 GB/s
  std::vector<Network::Reschedule> ignored;
  CHECK_FALSE(net.complete(1000000000, a, gen_a, ignored));  // the earlier transfer's event
  CHECK(net.complete(3000000000, b, out[0].gen, ignored));
}

TEST_CASE("rates are recomputed in the order transfers started, whatever ids were reused") {
  Network net;
  uint32_t store = net.add_resource(2e9);
  std::vector<Network::Reschedule> out;
  uint32_t first = net.start(0, 1e9, {store}, 0, 0, out);
  uint32_t second = net.start(0, 4e9, {store}, 0, 1, out);
  out.clear();
  CHECK(net.complete(1000000000, first, 2, out));  // 1 GB at 1 GB/s; first was rescheduled once (gen 2)
  uint32_t third = net.start(1000000000, 1e9, {store}, 0, 2, out);  // takes the first one's id
  REQUIRE(third == first);
  out.clear();
  uint32_t fourth = net.start(1000000000, 1e9, {store}, 0, 3, out);
  REQUIRE(out.size() == 3);
  CHECK(out[0].flow == second);  // started first, so rescheduled first, though its id is higher
  CHECK(out[1].flow == third);
  CHECK(out[2].flow == fourth);
}
