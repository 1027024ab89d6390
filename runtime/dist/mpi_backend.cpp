// The MPI side of runtime/dist (mpi_backend.h): the one translation unit that includes mpi.h, built as the
// module libgs_dist_mpi.so and opened by dist.cpp only in a process an MPI launcher started.
#include "runtime/dist/mpi_backend.h"

#include <mpi.h>

#include <algorithm>

namespace gs::dist {
namespace {

// MPI counts are ints: broadcast long buffers in pieces well below INT_MAX elements.
constexpr size_t kPiece = size_t(1) << 27;

template <class T>
void broadcast_pieces(T* data, size_t n, MPI_Datatype type, int from) {
  for (size_t done = 0; done < n; done += kPiece) MPI_Bcast(data + done, int(std::min(kPiece, n - done)), type, from, MPI_COMM_WORLD);
}

class OpenMpiBackend final : public MpiBackend {
 public:
  OpenMpiBackend() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm local;
    int local_size = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
      MPI_Comm_size(local, &local_size);
      MPI_Comm_free(&local);
    }
    local_ = unsigned(std::max(local_size, 1));
  }
  ~OpenMpiBackend() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  unsigned local_ranks() const override { return local_; }
  void broadcast(uint64_t* data, size_t n, int from) override { broadcast_pieces(data, n, MPI_UINT64_T, from); }
  void broadcast(double* data, size_t n, int from) override { broadcast_pieces(data, n, MPI_DOUBLE, from); }
  void broadcast(char* data, size_t n, int from) override { broadcast_pieces(data, n, MPI_CHAR, from); }

 private:
  int rank_ = 0, size_ = 1;
  unsigned local_ = 1;
};

}  // namespace
}  // namespace gs::dist

extern "C" gs::dist::MpiBackend* gs_dist_mpi_start(int* argc, char*** argv) {
  int provided = 0;
  // Only the calling thread talks to MPI (worker threads compute between the exchanges).
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return nullptr;
  return new gs::dist::OpenMpiBackend();
}
