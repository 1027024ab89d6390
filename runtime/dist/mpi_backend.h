// The boundary between runtime/dist/dist.cpp and MPI, which lives in a separately loaded module
// (libgs_dist_mpi.so, built from mpi_backend.cpp): linking Open MPI into gpu-stack made every process
// load and relocate libmpi and its six dependencies (hwloc, libevent, udev, ...) at start-up, though only a
// process started by mpirun or srun ever uses them. dist.cpp opens the module only then.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gs::dist {

// One per process, made by the module once MPI_Init succeeded; deleting it finalizes MPI. Only the thread
// that made it calls it (MPI_THREAD_FUNNELED).
struct MpiBackend {
  virtual ~MpiBackend() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual unsigned local_ranks() const = 0;  // ranks on this machine
  // MPI_Bcast over MPI_COMM_WORLD from rank `from`, in pieces well below INT_MAX elements.
  virtual void broadcast(uint64_t* data, size_t n, int from) = 0;
  virtual void broadcast(double* data, size_t n, int from) = 0;
  virtual void broadcast(char* data, size_t n, int from) = 0;
};

}  // namespace gs::dist

// The module's one entry point, found with dlsym: MPI_Init_thread, then the backend; null when MPI
// cannot start.
extern "C" gs::dist::MpiBackend* gs_dist_mpi_start(int* argc, char*** argv);
