#include "runtime/workers.h"

#include <system_error>
#include <thread>
#include <vector>

namespace gs {
namespace {

// Joins every started thread, also when the calling thread's own share throws.
struct Pool {
  std::vector<std::thread> threads;
  ~Pool() {
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }
  void start(unsigned count, const std::function<void()>& worker) {
    for (unsigned i = 0; i < count; ++i) try {
        threads.emplace_back(worker);
      } catch (const std::system_error&) {
        return;  // the system will not give us more; the ones running share the work
      }
  }
};

}  // namespace

unsigned run_workers(unsigned threads, const std::function<void()>& worker, const std::function<void()>& while_waiting) {
  if (threads == 0) threads = 1;
  Pool pool;
  if (while_waiting) {
    pool.start(threads, worker);
    if (pool.threads.empty()) {
      worker();
      return 1;
    }
    while_waiting();
    return unsigned(pool.threads.size());
  }
  pool.start(threads - 1, worker);
  worker();
  return unsigned(pool.threads.size()) + 1;
}

}  // namespace gs
