// Running one command on several processes (MPI ranks). This is the only interface the commands see;
// runtime/dist/mpi_backend.cpp alone includes mpi.h, in a module dist.cpp loads only under an MPI launcher,
// and a build without MPI (GSTACK_WITH_MPI=OFF) compiles the same functions for a group of one process.
//
// The model: every rank runs the same command on the same input; work that is split (rows of a compiled
// cone, points of a sweep) is cut into contiguous blocks by item index, one block per rank, and every
// block is then shared with every rank in rank order, so all ranks end with the same result and take
// the same path afterwards. Anything random is seeded from the item index, never from the rank, so the
// result does not depend on the number of ranks. Only rank 0 prints or writes files.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gs::dist {

// Joins the process group for the program's lifetime: MPI is loaded and started only when a launcher
// (mpirun, srun) started this process, so a plain run never touches MPI. One per program, in main; the
// front end says whether a launcher started it and which MPI module to open (tools/frontend/workspace_env.h
// reads the launcher's variables and GSTACK_MPI_MODULE); an empty `mpi_module` is the one this build made.
class Launch {
 public:
  Launch(int* argc, char*** argv, bool under_launcher, const std::string& mpi_module);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;
  // Why a process a launcher started runs as a group of one (the module or MPI_Init failed); empty
  // otherwise. The front end prints it.
  const std::string& warning() const { return warning_; }

 private:
  std::string warning_;
};

bool built_with_mpi();
int rank();  // 0 without MPI
int size();  // 1 without MPI
inline bool root() { return rank() == 0; }
// Ranks on this machine (to share its cores among them); 1 without MPI.
unsigned local_ranks();

// For a command with no distributed path: ranks other than 0 should exit at once; rank 0 carries on as
// a group of one (so the split below never waits for ranks that left).
void work_alone();

struct Block {
  size_t begin = 0, end = 0;  // items [begin, end)
  size_t size() const { return end - begin; }
};
// Rank `r`'s contiguous block of `items`: blocks follow rank order and differ in size by at most one.
Block block_of(size_t items, int r, int ranks);

// Splits items [0, items) into one block per rank. Each rank runs compute(its block), which returns any
// number of values; then every rank receives every block's values in rank order through
// deliver(block, values), its own included. When compute throws on some rank, every rank throws
// std::runtime_error with the message of the lowest such rank once the exchange is over (no rank is
// left waiting). With one rank this is compute then deliver.
void share_blocks(size_t items, const std::function<std::vector<double>(Block)>& compute,
                  const std::function<void(Block, const std::vector<double>&)>& deliver);

}  // namespace gs::dist
