// Evaluates a compiled cone over many rows on all cores. Rows are processed in fixed-size chunks, so
// anything derived from the chunk index (random streams, output order) does not depend on the number
// of threads.
#pragma once

#include <cstddef>
#include <functional>

#include "runtime/jit/jit.h"

namespace gs {

constexpr size_t kChunkRows = 4096;

struct RowBlock {
  size_t chunk = 0;      // chunk index
  size_t first_row = 0;  // global index of the first row
  size_t rows = 0;
  double* inputs = nullptr;         // rows × cone.n_inputs, to be filled by `fill`
  const double* outputs = nullptr;  // rows × cone.n_outputs, valid in `consume`
};

// fill(block) writes the block's input rows; consume(block) reads its outputs. Both run on worker
// threads, concurrently for different blocks. progress(rows_done) runs on the calling thread.
void parallel_evaluate(const CompiledCone& cone, size_t total_rows, unsigned threads,
                       const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume,
                       const std::function<void(size_t)>& progress = {});

// The same over chunks [first_chunk, end_chunk) of `total_rows` only (chunk indices and rows as in the
// whole run), so a run can be evaluated in consecutive parts that draw what the whole run draws.
void parallel_evaluate_chunks(const CompiledCone& cone, size_t total_rows, size_t first_chunk, size_t end_chunk, unsigned threads,
                              const std::function<void(RowBlock&)>& fill, const std::function<void(const RowBlock&)>& consume);

unsigned default_threads();

}  // namespace gs
