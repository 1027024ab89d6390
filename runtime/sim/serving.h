// A request-level serving workload for the simulator: requests arrive (Poisson or a trace), each with a
// prompt and an output length drawn from stated distributions, and one replica serves them with
// continuous (iteration-level) batching under a KV-cache capacity. Every iteration prefills the requests
// admitted at its start (their first token comes out at its end) and decodes one token for every
// sequence already running. A request is admitted first come, first served while the batch has a free
// slot and its whole KV footprint (prompt plus output tokens) fits what the running sequences leave, so
// no sequence is ever preempted. Durations come from the model through ServingEngine (see
// serving_model.h); this file only runs the queue.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/rng.h"

namespace gs::sim {

// A token-count distribution: fixed, uniform over [low, high] (whole tokens), or drawn from a list.
struct LengthDistribution {
  enum class Kind { fixed, uniform, empirical } kind = Kind::fixed;
  uint32_t low = 1, high = 1;    // fixed uses low
  std::vector<uint32_t> values;  // empirical
  uint32_t draw(Rng& rng) const;
  double mean() const;
};

struct ServingWorkload {
  double rate_per_s = 0;            // Poisson arrivals; ignored when arrivals_s is given
  std::vector<double> arrivals_s;   // a trace of arrival times (sorted), seconds from the start
  LengthDistribution prompt, output;
  // Prompt and output drawn as one row of a trace (both empirical lists of the same length, row i of
  // each), so a long prompt keeps the output it came with; otherwise drawn independently.
  bool paired_lengths = false;
  double horizon_s = 0;             // arrivals stop at the horizon; requests in flight still finish
  double warmup_s = 0;              // requests arriving before this are served but not measured
};

struct ServingEngine {
  uint32_t max_batch = 1;                           // sequences decoded together at most
  double kv_capacity_tokens = 0;                    // tokens of KV the replica holds
  std::function<double(uint32_t)> decode_step_s;    // one decode step of a batch of b sequences (b >= 1)
  std::function<double(uint32_t)> prefill_s;        // replica time to prefill one prompt of n tokens
};

struct RequestRecord {
  double arrival_s = 0, first_token_s = 0, finish_s = 0;
  uint32_t prompt = 0, output = 0;
  double ttft() const { return first_token_s - arrival_s; }
  double latency() const { return finish_s - arrival_s; }
  // Mean time between output tokens after the first (0 for a one-token output).
  double tpot() const { return output > 1 ? (finish_s - first_token_s) / double(output - 1) : 0.0; }
};

struct ServingSummary {
  uint64_t arrived = 0, measured = 0;
  double arrival_rate_per_s = 0;      // measured requests over the measured window
  double output_tokens_per_s = 0;     // output tokens of measured requests over the measured window
  double mean_ttft_s = 0, p50_ttft_s = 0, p90_ttft_s = 0, p99_ttft_s = 0;
  double mean_tpot_s = 0, p50_tpot_s = 0, p90_tpot_s = 0, p99_tpot_s = 0;
  double mean_latency_s = 0;
  double mean_in_system = 0;          // time average of requests arrived and not finished (Little's L)
  double busy_fraction = 0;           // share of the measured window the replica runs an iteration
  double mean_batch = 0;              // sequences per iteration, averaged over iterations
  double end_s = 0;                   // when the last request finished
};

struct ServingRun {
  std::vector<RequestRecord> requests;  // in arrival order
  ServingSummary summary;
};

// Deterministic for a seed: arrivals and lengths come from separate streams derived from it. Throws
// std::invalid_argument on an engine or workload that cannot run (no batch, a request larger than the KV
// capacity, a non-positive step time).
ServingRun simulate_serving(const ServingWorkload& workload, const ServingEngine& engine, uint64_t seed);

// The two halves of simulate_serving: the requests a workload draws for a seed (arrival, prompt and
// output; times unset), and serving given requests (in arrival order) on one replica over the workload's
// window, so several replicas can split one stream of requests.
std::vector<RequestRecord> draw_requests(const ServingWorkload& workload, uint64_t seed);
ServingRun serve_requests(std::vector<RequestRecord> requests, const ServingWorkload& workload, const ServingEngine& engine);

// The request-level fields of the summary (all but busy_fraction and mean_batch, which need the
// iterations) over requests arriving in [warmup, horizon); serves one replica or several merged.
ServingSummary summarize_requests(const std::vector<RequestRecord>& requests, double warmup_s, double horizon_s);

// The share of measured requests with TTFT and TPOT within the limits (SLO attainment, 0..1).
double slo_attainment(const ServingRun& run, double ttft_max_s, double tpot_max_s, double warmup_s);

// Output tokens per second of the measured requests that met both limits, over the measured window
// [warmup, horizon): the goodput under the SLO (Zhong et al., DistServe, OSDI 2024).
double slo_goodput_tokens_per_s(const ServingRun& run, double ttft_max_s, double tpot_max_s, double warmup_s, double horizon_s);

}  // namespace gs::sim
