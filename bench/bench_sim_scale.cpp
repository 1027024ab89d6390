// How the simulator's cost grows with the fleet, against baselines measured in the same run:
//   1. the event loop (the simulator's queue and dispatch loop on the classic hold model) against
//      std::priority_queue on the same workload;
//   2. whole simulator runs of the Llama 3 scenario scaled to 16,384 and 1,048,576 GPUs, as events per
//      second against the bare event loop (aim: within 4x at both sizes);
//   3. the scaling exponent of simulate's wall time over a 100x range of GPUs (aim: at most 1.1);
//   4. the peak heap of the million-GPU run (aim, from issue 16: under 4 GiB) and its CPU time (under 60 s).
// Every axis is checked to move what it claims to: the loops must run the events asked for, and a scaled
// scenario must hold the GPUs asked for and produce more events than the smaller one. A failed check
// exits 1; a missed aim is reported and exits 0. Times are the thread's CPU time (the simulator is one
// thread), so other work on a shared machine does not inflate them; each is the best of a few runs.
//   bench_sim_scale [--quick]          (--quick: smaller sizes, for a smoke run)
//   bench_sim_scale --simulate GPUS    (only whole runs at one size, ten times: for a profiler)
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <new>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <queue>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/bench_units.h"
#include "compiler/compile.h"
#include "runtime/rng.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/event_queue.h"
#include "runtime/sim/scenario_toml.h"

namespace {

using namespace gs::sim;
using bench::best_of;
using bench::loglog_slope;
using bench::verdict;

constexpr int kPending = 1000;  // events in flight in the hold model (anchor-peers.md D.1)
int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "bench_sim_scale: axis check failed: %s\n", what.c_str());
  ++failures;
}

// The hold model on the simulator's queue and loop: every event schedules one successor.
double event_loop_rate(int64_t events) {
  uint64_t ran = 0;
  double s = best_of(3, [&] {
    gs::Rng rng(1);
    EventQueue q;
    q.reserve(kPending + 1);
    for (int i = 0; i < kPending; ++i) q.push(int64_t(rng.next() & 0xFFFFF), 0, Priority::completion, uint16_t(i & 3), uint32_t(i), 0);
    int64_t budget = events;
    uint64_t counts[4] = {0, 0, 0, 0};
    auto handler = [&](const Event& e) {
      ++counts[e.kind & 3];  // stands in for the simulator's dispatch on the event kind
      if (--budget > 0) q.push(e.time + 1 + int64_t(rng.next() & 0xFFFFF), e.time, Priority(e.kind % 3), uint16_t((e.kind + 1) & 3), e.target, e.gen);
      return budget > 0;
    };
    ran = run_events(q, handler).events;
  });
  check(ran == uint64_t(events), "the event loop ran the events asked for");
  return double(events) / s;
}

double priority_queue_rate(int64_t events) {
  struct E {
    int64_t t;
    uint64_t seq;
    bool operator>(const E& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  uint64_t ran = 0;
  double s = best_of(3, [&] {
    gs::Rng rng(1);
    std::priority_queue<E, std::vector<E>, std::greater<E>> q;
    uint64_t seq = 0;
    for (int i = 0; i < kPending; ++i) q.push({int64_t(rng.next() & 0xFFFFF), seq++});
    ran = 0;
    for (int64_t n = 0; n < events; ++n) {
      E e = q.top();
      q.pop();
      q.push({e.t + 1 + int64_t(rng.next() & 0xFFFFF), seq++});
      ++ran;
    }
  });
  check(ran == uint64_t(events), "the priority queue ran the events asked for");
  return double(events) / s;
}

// The shipped Llama 3 scenario with its one job scaled to `gpus` GPUs (a whole number of its replicas)
// and the site's hot spares in the same proportion. Failure rates are per unit, so the failures scale with
// the fleet as the source's rates imply.
Scenario scaled_llama3(uint64_t gpus) {
  Scenario sc = shipped_scenario("llama3-405b-16k.toml");
  SiteSpec& site = sc.sites.at(0);
  JobSpec& job = sc.jobs.at(0);
  uint32_t base_job_nodes = job.placement.at(0).nodes, base_spares = site.nodes - base_job_nodes;
  uint64_t replica_gpus = uint64_t(job.replica_nodes) * site.gpus_per_node;
  auto job_nodes = static_cast<uint32_t>(gpus / replica_gpus * job.replica_nodes);
  job.placement.at(0).nodes = job_nodes;
  site.nodes = job_nodes + std::max<uint32_t>(1, static_cast<uint32_t>(uint64_t(base_spares) * job_nodes / base_job_nodes));
  sc.finalize();
  return sc;
}

struct Run {
  uint64_t gpus = 0, events = 0;
  double seconds = 0, setup_seconds = 0;  // setup: the same fleet run for 1 ns (set-up and results only)
  double peak_heap_bytes = 0;             // the most heap one whole run held at once (the scenario excluded)
  double rate() const { return double(events) / seconds; }
  double rate_after_setup() const { return double(events) / (seconds - setup_seconds); }
};

Run simulate_scaled(uint64_t gpus, int repeats) {
  Scenario sc = scaled_llama3(gpus);
  Run run;
  run.seconds = best_of(repeats, [&] {
    run.peak_heap_bytes = heap::peak_above_start([&] {
      SimResult r = simulate(sc, {sc.seed, std::nullopt});
      run.events = r.events;
      run.gpus = r.jobs.at(0).gpus;
    });
  });
  check(run.peak_heap_bytes > 0, "the heap counter saw the run allocate");
  Scenario instant = sc;
  instant.horizon_ns = 1;
  run.setup_seconds = best_of(repeats, [&] { simulate(instant, {sc.seed, std::nullopt}); });
  check(run.setup_seconds < run.seconds, "a 1 ns run costs less than the whole run");
  check(run.gpus == gpus, "the scaled scenario holds " + std::to_string(gpus) + " GPUs (it holds " + std::to_string(run.gpus) + ")");
  return run;
}


}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--simulate") == 0) {
    Run r = simulate_scaled(std::stoull(argv[2]), 10);
    std::printf("simulate %llu GPUs: %llu events in %.4f s, peak heap %.1f MiB\n", (unsigned long long)r.gpus, (unsigned long long)r.events,
                r.seconds, r.peak_heap_bytes / 1048576.0);
    return failures ? 1 : 0;
  }
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int64_t loop_events = quick ? 500'000 : 5'000'000;
  const double loop = event_loop_rate(loop_events), heap = priority_queue_rate(loop_events);
  std::printf("event loop            %8.2f M events/s\n", loop / 1e6);
  std::printf("std::priority_queue   %8.2f M events/s   loop / priority_queue = %.2f\n", heap / 1e6, loop / heap);

  // 2. Whole runs against the bare loop.
  const std::vector<uint64_t> sizes = quick ? std::vector<uint64_t>{16384, 131072} : std::vector<uint64_t>{16384, 1048576};
  std::vector<Run> runs;
  for (uint64_t g : sizes) runs.push_back(simulate_scaled(g, quick ? 1 : 3));
  check(runs[1].events > runs[0].events, "a larger fleet gives more events");
  bool all_within = true;
  for (const auto& r : runs) {
    double ratio = loop / r.rate();
    all_within &= ratio <= 4.0;
    std::printf("simulate %8llu GPUs, 54 days: %9llu events in %7.3f s = %6.2f M events/s; loop / simulate = %5.2f (aim <= 4: %s)\n",
                (unsigned long long)r.gpus, (unsigned long long)r.events, r.seconds, r.rate() / 1e6, ratio, verdict(ratio <= 4.0));
    std::printf("    of which set-up (per-GPU draws, node and spare tables) and results %.3f s; after set-up %6.2f M events/s, loop / that = %5.2f\n",
                r.setup_seconds, r.rate_after_setup() / 1e6, loop / r.rate_after_setup());
    std::printf("    peak heap %.1f MiB (%.0f bytes per GPU)\n", r.peak_heap_bytes / 1048576.0, r.peak_heap_bytes / double(r.gpus));
  }
  // 4. The budget for the largest fleet: under 60 s and 4 GiB (on the build machine's cores).
  const Run& largest = runs.back();
  const bool fast = largest.seconds < 60, small = largest.peak_heap_bytes < 4.0 * 1073741824.0;
  std::printf("largest fleet, %llu GPUs for 54 days: %.3f s CPU (aim < 60 s: %s), peak heap %.1f MiB (aim < 4 GiB: %s)\n",
              (unsigned long long)largest.gpus, largest.seconds, verdict(fast), largest.peak_heap_bytes / 1048576.0, verdict(small));

  // 3. The scaling exponent: least squares of log(time) on log(GPUs) over a 100x range.
  const std::vector<uint64_t> range = quick ? std::vector<uint64_t>{1024, 10240} : std::vector<uint64_t>{1024, 4096, 10240, 40960, 102400};
  std::vector<Run> sweep;
  for (uint64_t g : range) sweep.push_back(simulate_scaled(g, quick ? 1 : 3));
  std::vector<std::pair<double, double>> by_time, by_events;
  for (const auto& r : sweep) {
    by_time.emplace_back(double(r.gpus), r.seconds);
    by_events.emplace_back(double(r.gpus), double(r.events));
  }
  for (const auto& r : sweep)
    std::printf("  sweep %7llu GPUs: %8llu events, %7.4f s\n", (unsigned long long)r.gpus, (unsigned long long)r.events, r.seconds);
  check(sweep.back().events > sweep.front().events, "the GPU sweep changes the work simulated");
  const double exponent = loglog_slope(by_time);
  std::printf("simulate time ~ GPUs^%.3f over %llu..%llu GPUs (aim <= 1.1: %s); events ~ GPUs^%.3f\n", exponent,
              (unsigned long long)range.front(), (unsigned long long)range.back(), verdict(exponent <= 1.1), loglog_slope(by_events));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("process peak resident set (everything above, model units included): %.1f MiB\n", double(usage.ru_maxrss) / 1024.0);
  std::printf("aims: simulate within 4x of the bare loop at every size: %s; scaling exponent: %s; largest fleet time and memory: %s\n",
              verdict(all_within), verdict(exponent <= 1.1), verdict(fast && small));
  return failures ? 1 : 0;
}
