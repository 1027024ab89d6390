// The one-process path of runtime/dist (gs_dist_serial: the same source built without MPI), and the
// block arithmetic every rank count relies on.
#include <doctest/doctest.h>

#include <stdexcept>

#include "runtime/dist/dist.h"

using gs::dist::Block;
using gs::dist::block_of;

TEST_CASE("blocks are contiguous, in rank order, cover every item once and differ in size by at most one") {
  for (size_t items : {size_t(0), size_t(1), size_t(5), size_t(4096), size_t(1000003)})
    for (int ranks : {1, 2, 3, 7, 64}) {
      size_t next = 0, smallest = SIZE_MAX, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const Block b = block_of(items, r, ranks);
        CHECK(b.begin == next);
        next = b.end;
        smallest = std::min(smallest, b.size()), largest = std::max(largest, b.size());
      }
      CHECK(next == items);
      CHECK(largest - smallest <= 1);
    }
  CHECK(block_of(10, 0, 3).end == 4);  // the first items % ranks blocks take one more
  CHECK(block_of(10, 2, 3).begin == 7);
}

TEST_CASE("without MPI the process is rank 0 of 1 and share_blocks is compute then deliver") {
  gs::dist::Launch launch(nullptr, nullptr, false, "");  // no launcher, and no MPI in this build
  CHECK_FALSE(gs::dist::built_with_mpi());
  CHECK(gs::dist::rank() == 0);
  CHECK(gs::dist::size() == 1);
  CHECK(gs::dist::root());
  CHECK(gs::dist::local_ranks() == 1);
  int calls = 0;
  gs::dist::share_blocks(
      9, [&](Block b) { ++calls; CHECK(b.begin == 0); CHECK(b.end == 9); return std::vector<double>{1.5, 2.5}; },
      [&](Block b, const std::vector<double>& v) {
        ++calls;
        CHECK(b.size() == 9);
        CHECK(v == std::vector<double>{1.5, 2.5});
      });
  CHECK(calls == 2);
  // An error in compute reaches the caller unchanged (its type included).
  CHECK_THROWS_AS(gs::dist::share_blocks(
                      3, [](Block) -> std::vector<double> { throw std::invalid_argument("bad row"); }, [](Block, const std::vector<double>&) {}),
                  std::invalid_argument);
}
