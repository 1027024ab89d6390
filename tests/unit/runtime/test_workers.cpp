#include <doctest/doctest.h>

#include <atomic>
#include <fstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/workers.h"

namespace {

// Shares `tasks` among the workers through a counter, as every caller of run_workers does.
size_t run_tasks(unsigned threads, size_t tasks, unsigned* started, bool with_waiting) {
  std::atomic<size_t> next{0}, done{0};
  auto worker = [&] {
    while (next.fetch_add(1) < tasks) ++done;
  };
  std::function<void()> wait;
  if (with_waiting) wait = [&] {
    while (done.load() < tasks) usleep(1000);
  };
  *started = gs::run_workers(threads, worker, wait);
  return done.load();
}

size_t virtual_memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  statm >> pages;
  return pages * size_t(sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_CASE("workers: every task runs, on the threads asked for") {
  unsigned started = 0;
  CHECK(run_tasks(4, 100000, &started, false) == 100000);
  CHECK(started == 4);
  CHECK(run_tasks(3, 1000, &started, true) == 1000);
  CHECK(started == 3);
  CHECK(run_tasks(0, 10, &started, false) == 10);
  CHECK(started == 1);
}

TEST_CASE("workers: threads the system refuses to start mean fewer workers, never std::terminate") {
  // In a child process whose address space has room for only a few thread stacks (8 MiB each), ask for
  // 256 threads: std::thread throws std::system_error for most of them, which used to abort.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const rlim_t limit = virtual_memory_bytes() + (rlim_t(40) << 20);
    rlimit rl{limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    unsigned started = 0;
    const size_t done = run_tasks(256, 100000, &started, false);
    unsigned started_waiting = 0;
    const size_t done_waiting = run_tasks(256, 1000, &started_waiting, true);
    _exit(done == 100000 && done_waiting == 1000 && started >= 1 && started < 256 && started_waiting < 256 ? 0 : 4);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));  // not killed by SIGABRT from std::terminate
  CHECK(WEXITSTATUS(status) == 0);
}
