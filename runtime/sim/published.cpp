#include "runtime/sim/published.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gs::sim {

using research::Json;

namespace {

// Interruptions a job counted, split into planned (maintenance, category "Planned") and the rest.
struct Counts {
  double unexpected = 0, planned = 0, wall_h = 0;
};

Counts counts(const SimResult& r) {
  Counts c;
  for (const auto& j : r.jobs) {
    for (const auto& [category, n] : j.interruptions_by_category) (category == "Planned" ? c.planned : c.unexpected) += double(n);
    c.wall_h += j.wall_s() / 3600.0;
  }
  return c;
}

double ettr(const SimResult& r) {
  double busy = 0, wall = 0;
  for (const auto& j : r.jobs) {
    busy += double(j.time.compute_committed) * j.gpus;
    wall += double(j.end_ns - j.start_ns) * j.gpus;
  }
  return wall > 0 ? busy / wall : 0;
}

double metric_value(const std::string& metric, const SimResult& r) {
  Counts c = counts(r);
  if (metric == "ettr") return ettr(r);
  if (metric == "unexpected_interruptions") return c.unexpected;
  if (metric == "planned_interruptions") return c.planned;
  if (metric == "job_mtbf_h") return c.unexpected > 0 ? c.wall_h / c.unexpected : std::numeric_limits<double>::infinity();
  throw std::logic_error("unknown published metric " + metric);
}

bool satisfies(const FigureComparison& f) {
  if (f.relation == "gt") return f.simulated > f.published;
  if (f.relation == "lt") return f.simulated < f.published;
  return std::fabs(f.simulated - f.published) <= f.tolerance * std::fabs(f.published);
}

// The units of a class one job holds: its GPUs, its nodes, the domains its nodes fill, or the job itself.
double job_units(const FailureClass& c, const JobResult& j, uint32_t gpus_per_node) {
  double nodes = gpus_per_node ? double(j.gpus) / gpus_per_node : 0;
  switch (c.unit) {
    case FailureUnit::gpu: return j.gpus;
    case FailureUnit::node: return nodes;
    case FailureUnit::domain: return std::ceil(nodes / std::max<uint32_t>(c.domain_nodes, 1));
    case FailureUnit::job: return 1;
  }
  return 0;
}

}  // namespace

PublishedComparison compare_with_published(const Scenario& sc, const SimResult& r) {
  PublishedComparison out;
  if (sc.published.empty()) return out;
  for (const auto& p : sc.published) {
    FigureComparison f{p.id, p.metric, p.relation, p.source, p.note, p.value, p.tolerance, metric_value(p.metric, r), false};
    f.consistent = satisfies(f);
    out.figures.push_back(f);
  }
  uint32_t gpus_per_node = sc.sites.empty() ? 0 : sc.sites.front().gpus_per_node;
  for (const auto& c : sc.failures) {
    CauseComparison cc{c.id, c.category, 0, c.observed_count, 0};
    for (const auto& j : r.jobs) {
      if (auto it = j.interruptions.find(c.id); it != j.interruptions.end()) cc.simulated += it->second;
      cc.expected += c.rate_per_unit_s * job_units(c, j, gpus_per_node) * j.wall_s();
    }
    out.causes.push_back(cc);
  }
  return out;
}

Json comparison_to_json(const PublishedComparison& c) {
  Json figures = Json::array(), causes = Json::array();
  for (const auto& f : c.figures)
    figures.push_back({{"id", f.id}, {"metric", f.metric}, {"relation", f.relation}, {"published", f.published},
                       {"tolerance", f.tolerance}, {"simulated", f.simulated}, {"gap", f.simulated - f.published},
                       {"consistent", f.consistent}, {"source", f.source}, {"note", f.note}});
  for (const auto& k : c.causes)
    causes.push_back({{"cause", k.cause}, {"category", k.category}, {"simulated", k.simulated},
                      {"source_observed", k.observed_count}, {"source_rate_over_this_run", k.expected}});
  return {{"figures", figures}, {"interruptions_by_cause", causes}};
}

}  // namespace gs::sim
