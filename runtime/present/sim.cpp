#include "runtime/present/sim.h"

#include <fmt/format.h>

#include "runtime/sim/report.h"

namespace gs::present {

std::string simulate_text(const sim::SimulateRun& r) {
  if (r.replicas) return sim::replicas_text(*r.replicas);
  return r.results.size() == 1 ? sim::result_text(r.results[0]) : sim::replicas_text(r.results);
}

std::string protocol_text(const research::ExperimentProtocol& p) {
  std::string out = fmt::format("{}: {}\nprotocol_hash: {}\nquestion: {}\nhypothesis: {}\nfalsifiers:\n", p.experiment_id, p.title, p.hash(),
                                p.question, p.hypothesis);
  for (const auto& f : p.falsifiers) out += fmt::format("  {}: {} {}\n", f.falsifier_id, f.metric, f.rule_text());
  out += "structured evidence requirements:\n";
  if (p.evidence_requirements.empty()) out += "  none\n";
  for (const auto& q : p.evidence_requirements)
    out += fmt::format("  {}: {}; earliest {}; {}\n", q.requirement_id, q.mandatory ? "mandatory" : "optional",
                       research::stage_name(q.earliest_resolvable_stage), q.acceptance_rule);
  return out;
}

std::string experiment_run_text(const sim::ExperimentRun& r) {
  if (!r.stored) return research::pretty_dump(r.outcome.sealed);
  return fmt::format("{} {} ({}): artifact {} {} {}\n", r.protocol.experiment_id, research::verdict_name(r.outcome.verdict), r.outcome.conclusion,
                     r.stored->sha256, r.stored->already_present ? "already at" : "written to", r.stored->path);
}

}  // namespace gs::present
