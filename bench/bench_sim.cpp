// The simulator's speed: the event loop on its own (the real queue and the real dispatch loop, with a
// handler that switches on the event kind as the simulator's does), a std::priority_queue with the same
// workload as the baseline measured in the same run, and whole runs of the shipped scenarios.
#include <benchmark/benchmark.h>

#include <fstream>
#include <queue>
#include <sstream>

#include "bench/bench_units.h"
#include "compiler/compile.h"
#include "runtime/research/protocol.h"
#include "runtime/sim/engine.h"
#include "runtime/sim/event_queue.h"
#include "runtime/sim/experiments.h"
#include "runtime/rng.h"
#include "runtime/sim/scenario_toml.h"

namespace {

using namespace gs::sim;

constexpr int kPending = 1000;  // events in flight, as in the DES anchors of anchor-peers.md D.1

// The classic hold model: every event schedules one successor a random delay later.
void BM_EventLoop(benchmark::State& state) {
  gs::Rng rng(1);
  uint64_t counts[4] = {0, 0, 0, 0};
  for (auto _ : state) {
    state.PauseTiming();
    EventQueue q;
    q.reserve(kPending + 1);
    for (int i = 0; i < kPending; ++i) q.push(int64_t(rng.next() & 0xFFFFF), 0, Priority::completion, uint16_t(i & 3), uint32_t(i), 0);
    int64_t budget = state.range(0);
    state.ResumeTiming();
    auto handler = [&](const Event& e) {
      switch (e.kind) {  // stands in for the simulator's dispatch on the event kind
        case 0: ++counts[0]; break;
        case 1: ++counts[1]; break;
        case 2: ++counts[2]; break;
        default: ++counts[3]; break;
      }
      if (--budget > 0)
        q.push(e.time + 1 + int64_t(rng.next() & 0xFFFFF), e.time, Priority(e.kind % 3), uint16_t((e.kind + 1) & 3), e.target, e.gen);
      return budget > 0;
    };
    LoopStats st = run_events(q, handler);
    benchmark::DoNotOptimize(st);
  }
  benchmark::DoNotOptimize(counts);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EventLoop)->Arg(5000000)->Unit(benchmark::kMillisecond);

// Baseline: the same hold model on std::priority_queue with a plain (time, sequence) key.
void BM_StdPriorityQueue(benchmark::State& state) {
  struct E {
    int64_t t;
    uint64_t seq;
    bool operator>(const E& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  gs::Rng rng(1);
  for (auto _ : state) {
    state.PauseTiming();
    std::priority_queue<E, std::vector<E>, std::greater<E>> q;
    uint64_t seq = 0;
    for (int i = 0; i < kPending; ++i) q.push({int64_t(rng.next() & 0xFFFFF), seq++});
    int64_t budget = state.range(0);
    state.ResumeTiming();
    while (budget-- > 0) {
      E e = q.top();
      q.pop();
      q.push({e.t + 1 + int64_t(rng.next() & 0xFFFFF), seq++});
    }
    benchmark::DoNotOptimize(q);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StdPriorityQueue)->Arg(5000000)->Unit(benchmark::kMillisecond);

// The frontier-scale run: 16,384 GPUs, 54 days, the Llama 3 failure data, checkpoint-restart.
void BM_Simulate_Llama3_16k_54d(benchmark::State& state) {
  Scenario sc = shipped_scenario("llama3-405b-16k.toml");
  uint64_t events = 0;
  for (auto _ : state) {
    SimResult r = simulate(sc, {sc.seed + uint64_t(state.iterations()), std::nullopt});
    events += r.events;
    benchmark::DoNotOptimize(r);
  }
  state.counters["events_per_s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Simulate_Llama3_16k_54d)->Unit(benchmark::kMillisecond);

void BM_Experiment_E001(benchmark::State& state) {
  auto protocol = gs::research::load_frozen_protocol(GSTACK_SOURCE_DIR "/experiments", "E001");
  std::ifstream in(GSTACK_SOURCE_DIR "/experiments/E001/scenario-screening-v1.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto scenario = gs::research::Json::parse(ss.str());
  for (auto _ : state) benchmark::DoNotOptimize(run_experiment(protocol, scenario, std::nullopt));
}
BENCHMARK(BM_Experiment_E001)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
