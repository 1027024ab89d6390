// Text renderers of the simulator's runs and the frozen experiments (runtime/sim/commands.h); a run's
// own report texts are in runtime/sim/report.h and serving_report.h.
#pragma once

#include <string>

#include "runtime/research/protocol.h"
#include "runtime/sim/commands.h"

namespace gs::present {

// `simulate`: one replica's report, or the replicas' table.
std::string simulate_text(const sim::SimulateRun& r);
// `experiment-protocol`: the question, hypothesis, falsifiers and evidence requirements.
std::string protocol_text(const research::ExperimentProtocol& p);
// `experiment-run`: the sealed artifact (no --output), or the stored artifact's one-line summary.
std::string experiment_run_text(const sim::ExperimentRun& r);

}  // namespace gs::present
