// The simulator's runs as the gpu-stack commands report them (tools/gpu-stack/simulate.cpp), for the
// tests that pin exit statuses and printed text.
#pragma once

#include <string>

#include "runtime/present/sim.h"
#include "runtime/research/canonical_json.h"
#include "runtime/sim/commands.h"

namespace gs::sim::testing {

// A run as `gpu-stack` reports it: its exit status (0; 1 for a failed verdict or a broken invariant; 2 for
// bad input), what it prints on stdout (`json`: the JSON the command prints) and on stderr.
struct CommandOutput {
  int status = 0;
  std::string out, err;
};
template <class Run, class Show>
CommandOutput as_command(Run run, Show show) {
  CommandOutput o;
  try {
    auto result = run();
    o.out = show(result, o.status);
  } catch (const RunError& e) {
    o.status = e.failure == RunFailure::invariant ? 1 : 2;
    o.err = std::string("error: ") + e.what() + "\n";
  }
  return o;
}
inline CommandOutput experiment_run_as_command(const ExperimentRunArgs& a, bool json = false) {
  return as_command([&] { return experiment_run(a); }, [&](const ExperimentRun& r, int& status) {
    status = r.outcome.verdict == research::Verdict::fail ? 1 : 0;
    return json && r.stored ? research::pretty_dump(research::Json(r)) : present::experiment_run_text(r);
  });
}
inline CommandOutput simulate_as_command(const SimulateArgs& a, bool json = false) {
  return as_command([&] { return simulate_runs(a); }, [&](const SimulateRun& r, int&) {
    return json ? research::pretty_dump(research::Json(r)) : present::simulate_text(r);
  });
}

}  // namespace gs::sim::testing
