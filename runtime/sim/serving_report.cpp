#include "runtime/sim/serving_report.h"

#include <cmath>

#include <fmt/format.h>

namespace gs::sim {

using research::Json;

namespace {

Json finite_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

}  // namespace

Json serving_result_json(const ServingSimResult& r) {
  const ServingSummary& s = r.summary;
  const ServingModelPoint& m = r.model;
  const ServingScenario& sc = r.scenario;
  return {{"schema", "gpu-stack.serving-sim-result.v1"},
          {"scenario", sc.name},
          {"preset", sc.preset},
          {"seed", r.seed},
          {"replicas", sc.replicas},
          {"max_batch", sc.max_batch},
          {"window_s", {sc.workload.warmup_s, sc.workload.horizon_s}},
          {"offered_rate_per_s", sc.workload.rate_per_s},
          {"slo", {{"ttft_max_s", sc.ttft_max_s}, {"tpot_max_s", sc.tpot_max_s}}},
          {"sources", sc.sources},
          {"model", {{"decode_step_batch1_s", m.decode_step_batch1_s}, {"decode_step_max_batch_s", m.decode_step_max_batch_s},
                     {"prefill_mean_prompt_s", m.prefill_mean_prompt_s}, {"kv_capacity_tokens", m.kv_capacity_tokens},
                     {"replica_power_w", m.replica_power_w}, {"replica_cost_usd_per_s", m.replica_cost_usd_per_s}}},
          {"requests", {{"arrived", s.arrived}, {"measured", s.measured}, {"arrival_rate_per_s", s.arrival_rate_per_s}}},
          {"ttft_s", {{"mean", s.mean_ttft_s}, {"p50", s.p50_ttft_s}, {"p90", s.p90_ttft_s}, {"p99", s.p99_ttft_s}}},
          {"tpot_s", {{"mean", s.mean_tpot_s}, {"p50", s.p50_tpot_s}, {"p90", s.p90_tpot_s}, {"p99", s.p99_tpot_s}}},
          {"mean_latency_s", s.mean_latency_s},
          {"output_tokens_per_s", s.output_tokens_per_s},
          {"goodput_tokens_per_s", r.goodput_tokens_per_s},
          {"slo_attainment", r.slo_attainment},
          {"busy_fraction", s.busy_fraction},
          {"mean_batch", s.mean_batch},
          {"mean_in_system", s.mean_in_system},
          {"energy_j", r.energy_j},
          {"energy_per_output_token_j", finite_or_null(r.energy_per_output_token_j)},
          {"cost_usd", r.cost_usd},
          {"cost_per_million_output_tokens_usd", finite_or_null(r.cost_per_million_output_tokens_usd)},
          {"cost_per_million_goodput_tokens_usd", finite_or_null(r.cost_per_million_goodput_tokens_usd)},
          {"accounting", "replicas are held and draw the model's serving power through the whole measured window, idle or not"}};
}

std::string serving_timeline_text(const ServingSimResult& r, TimelineFormat format) {
  std::string out = format == TimelineFormat::csv ? "replica,arrival_s,first_token_s,finish_s,prompt_tokens,output_tokens,ttft_s,tpot_s\n" : "";
  for (size_t i = 0; i < r.requests.size(); ++i) {
    const RequestRecord& q = r.requests[i];
    if (format == TimelineFormat::csv)
      out += fmt::format("{},{},{},{},{},{},{},{}\n", r.replica_of[i], research::format_double(q.arrival_s), research::format_double(q.first_token_s),
                         research::format_double(q.finish_s), q.prompt, q.output, research::format_double(q.ttft()), research::format_double(q.tpot()));
    else
      out += research::canonical_dump(Json({{"replica", r.replica_of[i]}, {"arrival_s", q.arrival_s}, {"first_token_s", q.first_token_s},
                                            {"finish_s", q.finish_s}, {"prompt_tokens", q.prompt}, {"output_tokens", q.output},
                                            {"ttft_s", q.ttft()}, {"tpot_s", q.tpot()}})) + "\n";
  }
  return out;
}

}  // namespace gs::sim
