#include "runtime/dist/dist.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if GSTACK_WITH_MPI
#include <dlfcn.h>

#include "runtime/dist/mpi_backend.h"
#endif

namespace gs::dist {
namespace {

int g_rank = 0, g_size = 1;
unsigned g_local = 1;

#if GSTACK_WITH_MPI
MpiBackend* g_mpi = nullptr;  // set while MPI runs; Launch's destructor deletes it, which finalizes MPI

// Opens the MPI module (`path`, else the one this build made) and starts MPI; null, with the reason in
// `warning`, when either fails, and the process then runs as a group of one. RTLD_GLOBAL: Open MPI's own
// plugins, which it opens in turn, expect libmpi's symbols to be visible to them.
MpiBackend* start_mpi(int* argc, char*** argv, const std::string& module, std::string& warning) {
  const std::string path = module.empty() ? std::string(GSTACK_MPI_MODULE) : module;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  using StartFn = MpiBackend* (*)(int*, char***);
  auto start = handle ? reinterpret_cast<StartFn>(dlsym(handle, "gs_dist_mpi_start")) : nullptr;
  if (!start) {
    const char* why = dlerror();
    warning = "started by an MPI launcher, but cannot load the MPI module '" + path + "' (" +
              (why ? why : "no gs_dist_mpi_start") + "); running as one process";
    return nullptr;
  }
  MpiBackend* backend = start(argc, argv);
  if (!backend) warning = "started by an MPI launcher, but MPI_Init_thread failed; running as one process";
  return backend;
}
#endif

}  // namespace

Launch::Launch([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv, [[maybe_unused]] bool under_launcher,
               [[maybe_unused]] const std::string& mpi_module) {
#if GSTACK_WITH_MPI
  // Without a launcher there is nothing to join, and loading MPI would only slow every plain command down.
  if (g_mpi || !under_launcher) return;
  g_mpi = start_mpi(argc, argv, mpi_module, warning_);
  if (!g_mpi) return;
  g_rank = g_mpi->rank(), g_size = g_mpi->size(), g_local = g_mpi->local_ranks();
#endif
}

Launch::~Launch() {
#if GSTACK_WITH_MPI
  delete g_mpi;
  g_mpi = nullptr;
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
  if (g_mpi && g_size > 1) {
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
      g_mpi->broadcast(head, 2, r);
      if (head[0] == 0) {
        std::vector<double> theirs;
        if (r != g_rank) theirs.resize(head[1]);
        std::vector<double>& v = r == g_rank ? values : theirs;
        g_mpi->broadcast(v.data(), v.size(), r);
        if (first_failure.empty()) deliver(block_of(items, r, g_size), v);
      } else {
        std::string text = r == g_rank ? failure : std::string(head[1], '\0');
        g_mpi->broadcast(text.data(), text.size(), r);
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
