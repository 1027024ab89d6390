#include "runtime/sim/serving.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>

namespace gs::sim {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const size_t i = size_t(pos);
  return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v[i];
}

double average(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

struct Running {
  size_t request;
  uint32_t remaining;  // output tokens still to decode
};

}  // namespace

uint32_t LengthDistribution::draw(Rng& rng) const {
  switch (kind) {
    case Kind::fixed: return low;
    case Kind::uniform: return low + uint32_t(rng.below(uint64_t(high - low) + 1));
    case Kind::empirical: return values[rng.below(values.size())];
  }
  return low;
}

double LengthDistribution::mean() const {
  switch (kind) {
    case Kind::fixed: return low;
    case Kind::uniform: return 0.5 * (double(low) + double(high));
    case Kind::empirical: {
      double s = 0;
      for (uint32_t v : values) s += v;
      return values.empty() ? 0 : s / double(values.size());
    }
  }
  return 0;
}

std::vector<RequestRecord> draw_requests(const ServingWorkload& w, uint64_t seed) {
  if (!(w.horizon_s > w.warmup_s) || w.warmup_s < 0) throw std::invalid_argument("serving workload: needs 0 <= warmup < horizon");
  if (w.arrivals_s.empty() && !(w.rate_per_s > 0)) throw std::invalid_argument("serving workload: needs a positive rate or a trace");
  for (const auto* d : {&w.prompt, &w.output})
    if ((d->kind == LengthDistribution::Kind::empirical && d->values.empty()) || (d->kind != LengthDistribution::Kind::empirical && (d->low < 1 || (d->high < d->low && d->kind == LengthDistribution::Kind::uniform))))
      throw std::invalid_argument("serving workload: a length distribution is empty or not positive");

  // arrivals and lengths, each from its own stream
  std::vector<RequestRecord> requests;
  Rng arrivals(derive_seed(seed, 0x5e41)), prompts(derive_seed(seed, 0x5e42)), outputs(derive_seed(seed, 0x5e43));
  if (!w.arrivals_s.empty()) {
    for (double t : w.arrivals_s)
      if (t < w.horizon_s) requests.push_back({t, 0, 0, 0, 0});
  } else {
    for (double t = arrivals.exponential(w.rate_per_s); t < w.horizon_s; t += arrivals.exponential(w.rate_per_s))
      requests.push_back({t, 0, 0, 0, 0});
  }
  const bool paired = w.paired_lengths;
  if (paired && (w.prompt.kind != LengthDistribution::Kind::empirical || w.output.kind != LengthDistribution::Kind::empirical ||
                 w.prompt.values.size() != w.output.values.size()))
    throw std::invalid_argument("serving workload: paired lengths need two lists of the same length");
  for (auto& r : requests) {
    if (paired) {
      const size_t row = prompts.below(w.prompt.values.size());
      r.prompt = w.prompt.values[row];
      r.output = std::max<uint32_t>(1, w.output.values[row]);
    } else {
      r.prompt = w.prompt.draw(prompts);
      r.output = std::max<uint32_t>(1, w.output.draw(outputs));
    }
    if (r.prompt < 1) throw std::invalid_argument("serving workload: a prompt of 0 tokens");
  }
  return requests;
}

ServingRun simulate_serving(const ServingWorkload& w, const ServingEngine& e, uint64_t seed) {
  return serve_requests(draw_requests(w, seed), w, e);
}

ServingRun serve_requests(std::vector<RequestRecord> requests, const ServingWorkload& w, const ServingEngine& e) {
  if (e.max_batch < 1) throw std::invalid_argument("serving engine: max_batch must be at least 1");
  if (!e.decode_step_s || !e.prefill_s) throw std::invalid_argument("serving engine: step-time functions are missing");
  if (!(w.horizon_s > w.warmup_s) || w.warmup_s < 0) throw std::invalid_argument("serving workload: needs 0 <= warmup < horizon");
  ServingRun run;
  run.requests = std::move(requests);
  for (size_t i = 0; i < run.requests.size(); ++i) {
    const RequestRecord& r = run.requests[i];
    if (i && r.arrival_s < run.requests[i - 1].arrival_s) throw std::invalid_argument("serving requests must be in arrival order");
    if (r.prompt < 1 || r.output < 1) throw std::invalid_argument("serving requests need a prompt and an output of at least one token");
    if (double(r.prompt) + double(r.output) > e.kv_capacity_tokens)
      throw std::invalid_argument("serving workload: a request of " + std::to_string(r.prompt + r.output) +
                                  " tokens exceeds the replica's KV capacity of " + std::to_string(uint64_t(e.kv_capacity_tokens)) + " tokens");
  }

  // ---- iterations
  std::deque<size_t> waiting;
  std::vector<Running> running;
  double now = 0, kv_used = 0, busy = 0, batch_sum = 0;
  uint64_t iterations = 0;
  size_t next = 0;
  const double t0 = w.warmup_s;
  while (next < run.requests.size() || !waiting.empty() || !running.empty()) {
    while (next < run.requests.size() && run.requests[next].arrival_s <= now) waiting.push_back(next++);
    if (waiting.empty() && running.empty()) {
      now = run.requests[next].arrival_s;
      continue;
    }
    std::vector<size_t> admitted;
    while (!waiting.empty() && running.size() + admitted.size() < e.max_batch) {
      const RequestRecord& r = run.requests[waiting.front()];
      const double need = double(r.prompt) + double(r.output);
      if (kv_used + need > e.kv_capacity_tokens) break;  // first come, first served: no overtaking
      kv_used += need;
      admitted.push_back(waiting.front());
      waiting.pop_front();
    }
    double dt = 0;
    for (size_t i : admitted) dt += e.prefill_s(run.requests[i].prompt);
    if (!running.empty()) dt += e.decode_step_s(uint32_t(running.size()));
    if (!(dt > 0) || !std::isfinite(dt)) throw std::invalid_argument("serving engine: an iteration has no positive duration");
    const double end = now + dt;
    busy += std::max(0.0, std::min(end, w.horizon_s) - std::max(now, t0));
    batch_sum += double(running.size() + admitted.size());
    ++iterations;
    std::vector<Running> still;
    for (const Running& s : running) {
      if (s.remaining <= 1) {
        run.requests[s.request].finish_s = end;
        kv_used -= double(run.requests[s.request].prompt) + double(run.requests[s.request].output);
      } else {
        still.push_back({s.request, s.remaining - 1});
      }
    }
    for (size_t i : admitted) {
      RequestRecord& r = run.requests[i];
      r.first_token_s = end;  // prefill emits the first token
      if (r.output == 1) {
        r.finish_s = end;
        kv_used -= double(r.prompt) + double(r.output);
      } else {
        still.push_back({i, r.output - 1});
      }
    }
    running = std::move(still);
    now = end;
  }

  run.summary = summarize_requests(run.requests, w.warmup_s, w.horizon_s);
  const double window = w.horizon_s - t0;
  run.summary.busy_fraction = busy / window;
  run.summary.mean_batch = iterations ? batch_sum / double(iterations) : 0;
  return run;
}

ServingSummary summarize_requests(const std::vector<RequestRecord>& requests, double warmup_s, double horizon_s) {
  if (!(horizon_s > warmup_s)) throw std::invalid_argument("serving summary needs a window: warmup < horizon");
  ServingSummary s;
  s.arrived = requests.size();
  std::vector<double> ttft, tpot, latency;
  double out_tokens = 0, in_system = 0;
  for (const auto& r : requests) {
    s.end_s = std::max(s.end_s, r.finish_s);
    // time each request spends in the system inside the window, for the time-average L
    in_system += std::max(0.0, std::min(r.finish_s, horizon_s) - std::max(r.arrival_s, warmup_s));
    if (r.arrival_s < warmup_s) continue;
    ttft.push_back(r.ttft());
    if (r.output > 1) tpot.push_back(r.tpot());
    latency.push_back(r.latency());
    out_tokens += r.output;
  }
  const double window = horizon_s - warmup_s;
  s.measured = ttft.size();
  s.arrival_rate_per_s = double(s.measured) / window;
  s.output_tokens_per_s = out_tokens / window;
  s.mean_ttft_s = average(ttft), s.p50_ttft_s = quantile(ttft, 0.5), s.p90_ttft_s = quantile(ttft, 0.9), s.p99_ttft_s = quantile(ttft, 0.99);
  s.mean_tpot_s = average(tpot), s.p50_tpot_s = quantile(tpot, 0.5), s.p90_tpot_s = quantile(tpot, 0.9), s.p99_tpot_s = quantile(tpot, 0.99);
  s.mean_latency_s = average(latency);
  s.mean_in_system = in_system / window;
  return s;
}

double slo_attainment(const ServingRun& run, double ttft_max_s, double tpot_max_s, double warmup_s) {
  uint64_t n = 0, ok = 0;
  for (const auto& r : run.requests) {
    if (r.arrival_s < warmup_s) continue;
    ++n;
    ok += (r.ttft() <= ttft_max_s && r.tpot() <= tpot_max_s) ? 1 : 0;
  }
  return n ? double(ok) / double(n) : 1.0;
}

double slo_goodput_tokens_per_s(const ServingRun& run, double ttft_max_s, double tpot_max_s, double warmup_s, double horizon_s) {
  if (!(horizon_s > warmup_s)) throw std::invalid_argument("goodput needs a window: warmup < horizon");
  double tokens = 0;
  for (const auto& r : run.requests)
    if (r.arrival_s >= warmup_s && r.ttft() <= ttft_max_s && r.tpot() <= tpot_max_s) tokens += r.output;
  return tokens / (horizon_s - warmup_s);
}

}  // namespace gs::sim
