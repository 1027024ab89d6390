// Text renderers of the simulator's runs and the frozen experiments (runtime/sim/commands.h): what the
// commands print without --json. The JSON documents are beside their types (runtime/sim/report.h,
// serving_report.h, published.h).
#pragma once

#include <string>

#include "runtime/research/protocol.h"
#include "runtime/sim/commands.h"
#include "runtime/sim/published.h"
#include "runtime/sim/serving_report.h"

namespace gs::present {

// One run: per job work, interruptions, recovery and checkpoints; energy, cost, invariants, and the
// published figures its scenario declares.
std::string sim_result_text(const sim::SimResult& r);
// The run next to its scenario's published figures; empty when it declares none.
std::string published_comparison_text(const sim::PublishedComparison& c);
// Several replicas (replicas_to_json's document): each headline number's spread, and the invariants.
std::string replicas_text(const research::Json& replicas);
// `simulate --serving`: latency percentiles against the targets, throughput, goodput, energy and cost.
std::string serving_sim_text(const sim::ServingSimResult& r);
// `simulate`: one replica's report, or the replicas' table.
std::string simulate_text(const sim::SimulateRun& r);
// `experiment-protocol`: the question, hypothesis, falsifiers and evidence requirements.
std::string protocol_text(const research::ExperimentProtocol& p);
// `experiment-run`: the sealed artifact (no --output), or the stored artifact's one-line summary.
std::string experiment_run_text(const sim::ExperimentRun& r);

}  // namespace gs::present
