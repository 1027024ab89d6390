// What the plain-C++ growth benchmarks share (bench_sim_scale.cpp, bench_scaling.cpp): the thread's CPU
// time, the best of a few timings, a log-log exponent fit, and heap accounting for memory axes.
//
// The heap accounting replaces the global operator new and delete, which a program may do only once:
// include this header from exactly one .cpp of each benchmark binary.
#pragma once

#include <malloc.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <new>
#include <utility>
#include <vector>

// Every allocation of the process goes through these operators, so the peak of live bytes while one piece
// of work is in flight is that work's heap footprint (code, stacks, the allocator's own slack and C
// libraries' malloc excluded). malloc_usable_size gives the size back at delete without a header.
namespace heap {
inline std::atomic<int64_t> live{0}, peak{0};
inline void* allocate(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  int64_t now = live.fetch_add(int64_t(malloc_usable_size(p)), std::memory_order_relaxed) + int64_t(malloc_usable_size(p));
  for (int64_t seen = peak.load(std::memory_order_relaxed); now > seen && !peak.compare_exchange_weak(seen, now);) {
  }
  return p;
}
inline void release(void* p) noexcept {
  if (!p) return;
  live.fetch_sub(int64_t(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
// The peak heap that `work` adds above what was live when it started, in bytes.
template <class F>
double peak_above_start(F&& work) {
  const int64_t before = live.load();
  peak.store(before);
  work();
  return double(peak.load() - before);
}
}  // namespace heap

void* operator new(std::size_t n) { return heap::allocate(n); }
void* operator new[](std::size_t n) { return heap::allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return heap::allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept { heap::release(p); }
void operator delete[](void* p) noexcept { heap::release(p); }
void operator delete(void* p, std::size_t) noexcept { heap::release(p); }
void operator delete[](void* p, std::size_t) noexcept { heap::release(p); }

namespace bench {

inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// The best of `repeats` timings of the calling thread's CPU: the least disturbed by other work on the machine.
template <class F>
double best_of(int repeats, F&& f) {
  double best = INFINITY;
  for (int i = 0; i < repeats; ++i) {
    double t0 = cpu_seconds();
    f();
    best = std::min(best, cpu_seconds() - t0);
  }
  return best;
}

// The least-squares slope of log(y) on log(x): y grows like x^slope over the points given.
inline double loglog_slope(const std::vector<std::pair<double, double>>& points) {
  double mx = 0, my = 0;
  for (const auto& [x, y] : points) mx += std::log(x), my += std::log(y);
  const auto n = double(points.size());
  mx /= n, my /= n;
  double sxx = 0, sxy = 0;
  for (const auto& [x, y] : points) {
    const double dx = std::log(x) - mx;
    sxx += dx * dx, sxy += dx * (std::log(y) - my);
  }
  return sxy / sxx;
}

inline const char* verdict(bool met) { return met ? "met" : "MISSED"; }

}  // namespace bench
