// Starting worker threads without ever calling std::terminate: a thread the system refuses to start
// (std::system_error from std::thread, e.g. under a process or memory limit) means fewer workers, not a
// crash. Workers must share their work (through a counter), so that any number of them finishes it.
#pragma once

#include <functional>

namespace gs {

// Upper bound on --threads for every command; more is refused as bad input before work starts.
constexpr unsigned kMaxThreads = 1024;

// Runs `worker` on up to `threads` threads and returns when all have finished; returns how many ran it.
// Without `while_waiting`, the calling thread is one of the workers. With it, the calling thread runs
// while_waiting() (e.g. a progress bar; it must return once the work is done) while the others work,
// and does the work itself if no thread could be started.
unsigned run_workers(unsigned threads, const std::function<void()>& worker, const std::function<void()>& while_waiting = {});

}  // namespace gs
