// Loopback load test of `gpu-stack serve` (bench/serve_load.sh starts the server): a fixed number of
// requests from a few keep-alive connections, each request timed. Reports requests per second and the
// 50th/99th percentile latency of POST /api/resolve (each request a different assignment, so nothing can
// be answered from a cache), and of GET /api/health, the baseline measured in the same run (HTTP and
// JSON only, no model work). A bench client, never built by default; the server's own translation unit
// is runtime/serve/server.cpp.
// With the server's process id it also reports the server's CPU time per request (user + system, from
// /proc), the figure to trust on a busy machine, and the requests per second one core would give at it.
// Given target names after the pid (the site's questions), it also times the page's live re-resolve: all
// of them at once, one connection each, as js/live.js sends them after an input changes (target: 100 ms).
//   bench_serve PORT [REQUESTS] [CONNECTIONS] [SERVER_PID] [TARGET...]
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// CPU seconds (user + system) a process has used so far; 0 when it cannot be read.
double cpu_seconds(long pid) {
  if (pid <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "pid (comm) "
  std::string f;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i)
    if (i == 14 || i == 15) ticks += std::stod(f);  // utime, stime
  return ticks / double(sysconf(_SC_CLK_TCK));
}

struct Run {
  double seconds = 0;
  double server_cpu = 0;  // seconds
  std::vector<double> ms;  // per request
  size_t failed = 0;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, size_t(p / 100 * double(v.size())))];
}

Run load(int port, size_t requests, size_t connections, bool resolve, long pid) {
  Run r;
  const double cpu0 = cpu_seconds(pid);
  r.ms.resize(requests);
  std::atomic<size_t> next{0}, failed{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (size_t c = 0; c < connections; ++c)
    threads.emplace_back([&] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      for (size_t i; (i = next.fetch_add(1)) < requests;) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::string body = R"({"target": "econ.cost.per_token", "preset": "default", "trace": false, "assign": ["econ.gpu.capex=)" +
                                 std::to_string(25000 + i % 10000) + R"( USD"]})";
        httplib::Result res = resolve ? cli.Post("/api/resolve", body, "application/json") : cli.Get("/api/health");
        if (!res || res->status != 200) failed.fetch_add(1);
        r.ms[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      }
    });
  for (auto& t : threads) t.join();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.failed = failed;
  r.server_cpu = cpu_seconds(pid) - cpu0;
  return r;
}

// The page's re-resolve: every target at once (one connection each, keep-alive), `rounds` times, each
// round with a new GPU price; milliseconds from the first request sent to the last answer received.
std::vector<double> re_resolve(int port, const std::vector<std::string>& targets, size_t rounds, size_t& failed) {
  std::vector<std::unique_ptr<httplib::Client>> clients;
  for (size_t i = 0; i < targets.size(); ++i) {
    clients.push_back(std::make_unique<httplib::Client>("127.0.0.1", port));
    clients.back()->set_keep_alive(true);
    clients.back()->set_tcp_nodelay(true);
  }
  std::vector<double> ms;
  std::atomic<size_t> bad{0};
  for (size_t r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (size_t i = 0; i < targets.size(); ++i)
      threads.emplace_back([&, i] {
        const std::string body = R"({"target": ")" + targets[i] + R"(", "preset": "default", "trace": false, "assign": ["econ.gpu.capex=)" +
                                 std::to_string(20000 + 37 * r) + R"( USD"]})";
        httplib::Result res = clients[i]->Post("/api/resolve", body, "application/json");
        if (!res || res->status != 200) bad.fetch_add(1);
      });
    for (auto& t : threads) t.join();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  failed = bad;
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_serve PORT [REQUESTS] [CONNECTIONS]\n");
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const size_t requests = argc > 2 ? std::stoul(argv[2]) : 5000, connections = argc > 3 ? std::stoul(argv[3]) : 2;
  const long pid = argc > 4 ? std::stol(argv[4]) : 0;
  load(port, 200, connections, true, pid);  // warm-up: page in the image and the presets
  const Run health = load(port, requests, connections, false, pid);
  const Run resolve = load(port, requests, connections, true, pid);
  std::printf("serve_load: %zu requests per endpoint over %zu keep-alive connections, loopback\n", requests, connections);
  std::printf("  %-34s %10s %9s %9s %7s %14s %16s\n", "", "req/s", "p50 ms", "p99 ms", "failed", "server CPU ms", "req/s per core");
  for (const auto& [name, r] : {std::pair<const char*, const Run&>{"baseline: GET /api/health", health}, {"POST /api/resolve", resolve}}) {
    const double cpu_ms = r.server_cpu * 1000 / double(requests);
    std::printf("  %-34s %10.0f %9.3f %9.3f %7zu %14.3f %16.0f\n", name, double(requests) / r.seconds, percentile(r.ms, 50),
                percentile(r.ms, 99), r.failed, cpu_ms, cpu_ms > 0 ? 1000 / cpu_ms : 0.0);
  }
  size_t live_failed = 0;
  if (argc > 5) {
    const std::vector<std::string> targets(argv + 5, argv + argc);
    const std::vector<double> live = re_resolve(port, targets, 50, live_failed);
    std::printf("  live re-resolve of %zu targets at once (50 rounds): p50 %.3f ms, p99 %.3f ms, failed %zu; target < 100 ms: %s\n", targets.size(),
                percentile(live, 50), percentile(live, 99), live_failed, percentile(live, 50) < 100 ? "met" : "MISSED");
  }
  const double rps = double(requests) / resolve.seconds, p99 = percentile(resolve.ms, 99);
  std::printf("  resolve: %.2fx the baseline's throughput; target >= 1000 req/s and p99 < 50 ms: %s\n", rps * health.seconds / double(requests),
              rps >= 1000 && p99 < 50 ? "met" : "MISSED");
  return resolve.failed || health.failed || live_failed ? 1 : (rps >= 1000 && p99 < 50 ? 0 : 1);
}
