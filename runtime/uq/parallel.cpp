#include "runtime/uq/parallel.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/workers.h"

namespace gs {

unsigned default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

void parallel_evaluate(const CompiledCone& cone, size_t total_rows, unsigned threads,
                       const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume,
                       const std::function<void(size_t)>& progress) {
  const size_t chunks = (total_rows + kChunkRows - 1) / kChunkRows;
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(std::max<size_t>(chunks, 1))));
  std::atomic<size_t> next{0}, done_rows{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    try {
      std::vector<double> in(kChunkRows * cone.n_inputs), out(kChunkRows * cone.n_outputs);
      for (size_t c; (c = next.fetch_add(1)) < chunks;) {
        RowBlock b;
        b.chunk = c, b.first_row = c * kChunkRows, b.rows = std::min(kChunkRows, total_rows - b.first_row);
        b.inputs = in.data();
        fill(b);
        cone.batch(in.data(), out.data(), b.rows);
        b.outputs = out.data();
        consume(b);
        done_rows += b.rows;
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = chunks;  // stop the others early
    }
  };
  // A worker thread the system refuses to start only means fewer workers (runtime/workers.h).
  std::function<void()> report_progress;
  if (progress)
    report_progress = [&] {
      while (done_rows.load() < total_rows && next.load() < chunks) {
        progress(done_rows.load());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    };
  run_workers(threads, worker, report_progress);
  if (failure) std::rethrow_exception(failure);
  if (progress) progress(done_rows.load());
}

}  // namespace gs
