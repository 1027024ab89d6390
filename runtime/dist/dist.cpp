#include "runtime/dist/dist.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if GSTACK_WITH_MPI
#include <mpi.h>
#endif

namespace gs::dist {
namespace {

int g_rank = 0, g_size = 1;
unsigned g_local = 1;

#if GSTACK_WITH_MPI
bool g_started = false;  // MPI_Init ran (and MPI_Finalize is owed)

// MPI counts are ints: broadcast long buffers in pieces well below INT_MAX elements.
constexpr size_t kPiece = size_t(1) << 27;

template <class T>
void broadcast(T* data, size_t n, MPI_Datatype type, int from) {
  for (size_t done = 0; done < n; done += kPiece)
    MPI_Bcast(data + done, int(std::min(kPiece, n - done)), type, from, MPI_COMM_WORLD);
}
#endif

}  // namespace

Launch::Launch([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv, [[maybe_unused]] bool under_launcher) {
#if GSTACK_WITH_MPI
  // Without a launcher there is nothing to join, and MPI_Init would only slow every plain command down.
  if (g_started || !under_launcher) return;
  int provided = 0;
  // Only the calling thread talks to MPI (worker threads compute between the exchanges).
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
  g_started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm local;
  int local_size = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
  }
  g_local = unsigned(std::max(local_size, 1));
#endif
}

Launch::~Launch() {
#if GSTACK_WITH_MPI
  if (g_started) MPI_Finalize();
  g_started = false;
#endif
}

bool built_with_mpi() { return GSTACK_WITH_MPI != 0; }
int rank() { return g_rank; }
int size() { return g_size; }
unsigned local_ranks() { return g_local; }

void work_alone() { g_size = 1, g_local = 1; }

Block block_of(size_t items, int r, int ranks) {
  const size_t n = size_t(std::max(ranks, 1)), i = size_t(std::clamp(r, 0, int(n) - 1));
  const size_t base = items / n, extra = items % n;
  const size_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

void share_blocks(size_t items, const std::function<std::vector<double>(Block)>& compute,
                  const std::function<void(Block, const std::vector<double>&)>& deliver) {
#if GSTACK_WITH_MPI
  if (g_started && g_size > 1) {
    const Block mine = block_of(items, g_rank, g_size);
    std::vector<double> values;
    bool failed = false;
    std::string failure;
    try {
      values = compute(mine);
    } catch (const std::exception& e) {
      failed = true, failure = e.what();
    } catch (...) {
      failed = true, failure = "unknown error";
    }
    std::string first_failure;
    for (int r = 0; r < g_size; ++r) {
      // Header from rank r: {0, number of values} or {1, length of its error message}.
      uint64_t head[2] = {0, 0};
      if (r == g_rank) head[0] = failed ? 1 : 0, head[1] = failed ? failure.size() : values.size();
      MPI_Bcast(head, 2, MPI_UINT64_T, r, MPI_COMM_WORLD);
      if (head[0] == 0) {
        std::vector<double> theirs;
        if (r != g_rank) theirs.resize(head[1]);
        std::vector<double>& v = r == g_rank ? values : theirs;
        broadcast(v.data(), v.size(), MPI_DOUBLE, r);
        if (first_failure.empty()) deliver(block_of(items, r, g_size), v);
      } else {
        std::string text = r == g_rank ? failure : std::string(head[1], '\0');
        broadcast(text.data(), text.size(), MPI_CHAR, r);
        if (first_failure.empty()) first_failure = text.empty() ? "rank " + std::to_string(r) + " failed" : text;
      }
    }
    if (!first_failure.empty()) throw std::runtime_error(first_failure);
    return;
  }
#endif
  const Block all{0, items};
  deliver(all, compute(all));
}

}  // namespace gs::dist
