#include "runtime/uq/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/dist/dist.h"
#include "runtime/workers.h"

namespace gs {

// The machine's cores, shared among the ranks that run on it (one process: all of them).
unsigned default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return std::max(1u, (n ? n : 1) / dist::local_ranks());
}

namespace {

// Evaluates chunks [first_chunk, end_chunk) of `total_rows` on `threads` threads.
void evaluate_chunks(const CompiledCone& cone, size_t total_rows, size_t first_chunk, size_t end_chunk, unsigned threads,
                     const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume,
                     const std::function<void(size_t)>& progress) {
  const size_t own_rows = std::min(total_rows, end_chunk * kChunkRows) - std::min(total_rows, first_chunk * kChunkRows);
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(std::max<size_t>(end_chunk - first_chunk, 1))));
  std::atomic<size_t> next{first_chunk}, done_rows{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    try {
      std::vector<double> in(kChunkRows * cone.n_inputs), out(kChunkRows * cone.n_outputs);
      for (size_t c; (c = next.fetch_add(1)) < end_chunk;) {
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
      next = end_chunk;  // stop the others early
    }
  };
  // A worker thread the system refuses to start only means fewer workers (runtime/workers.h).
  std::function<void()> report_progress;
  if (progress)
    report_progress = [&] {
      while (done_rows.load() < own_rows && next.load() < end_chunk) {
        progress(done_rows.load());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    };
  run_workers(threads, worker, report_progress);
  if (failure) std::rethrow_exception(failure);
  if (progress) progress(done_rows.load());
}

}  // namespace

// One process: the chunks go straight to `consume`. Several MPI ranks: each evaluates its contiguous
// block of chunks into a buffer, the blocks are shared (runtime/dist), and every rank replays `consume`
// over every chunk, so each ends with the one-process result. A chunk's index and rows are the same
// whatever the number of ranks, so a random stream seeded by the chunk index draws the same values.
static void evaluate_range(const CompiledCone& cone, size_t total_rows, size_t first_chunk, size_t end_chunk, unsigned threads,
                           const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume,
                           const std::function<void(size_t)>& progress) {
  if (dist::size() == 1) return evaluate_chunks(cone, total_rows, first_chunk, end_chunk, threads, fill, consume, progress);
  const size_t n_out = cone.n_outputs;
  auto rows_before = [&](size_t chunk) { return std::min(total_rows, chunk * kChunkRows); };
  dist::share_blocks(
      end_chunk - first_chunk,
      [&](dist::Block mine) {
        mine.begin += first_chunk, mine.end += first_chunk;
        std::vector<double> out((rows_before(mine.end) - rows_before(mine.begin)) * n_out);
        const size_t offset = rows_before(mine.begin);
        evaluate_chunks(
            cone, total_rows, mine.begin, mine.end, threads, fill,
            [&](const RowBlock& b) { std::copy(b.outputs, b.outputs + b.rows * n_out, out.begin() + long((b.first_row - offset) * n_out)); },
            progress);
        return out;
      },
      [&](dist::Block block, const std::vector<double>& out) {
        block.begin += first_chunk, block.end += first_chunk;
        for (size_t c = block.begin; c < block.end; ++c) {
          RowBlock b;
          b.chunk = c, b.first_row = c * kChunkRows, b.rows = std::min(kChunkRows, total_rows - b.first_row);
          b.outputs = out.data() + (b.first_row - rows_before(block.begin)) * n_out;  // inputs stay null: consume reads outputs
          consume(b);
        }
      });
  if (progress) progress(rows_before(end_chunk) - rows_before(first_chunk));
}

void parallel_evaluate(const CompiledCone& cone, size_t total_rows, unsigned threads,
                       const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume,
                       const std::function<void(size_t)>& progress) {
  evaluate_range(cone, total_rows, 0, (total_rows + kChunkRows - 1) / kChunkRows, threads, fill, consume, progress);
}

void parallel_evaluate_chunks(const CompiledCone& cone, size_t total_rows, size_t first_chunk, size_t end_chunk, unsigned threads,
                              const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume) {
  end_chunk = std::min(end_chunk, (total_rows + kChunkRows - 1) / kChunkRows);
  if (first_chunk < end_chunk) evaluate_range(cone, total_rows, first_chunk, end_chunk, threads, fill, consume, {});
}

}  // namespace gs
