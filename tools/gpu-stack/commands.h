// The command families of gpu-stack, one file each in this folder. main.cpp calls these in the order
// --help and the completion script list the subcommands.
#pragma once

#include "tools/gpu-stack/cli.h"

namespace gs::cli {

void add_stats_command(Cli& cli);        // queries.cpp: stats
void add_resolve_commands(Cli& cli);     // resolve.cpp: resolve, trace, scenario-report
void add_export_command(Cli& cli);       // export.cpp: export dot|json|site
void add_numeric_commands(Cli& cli);     // numeric.cpp: sweep, uncertainty, sensitivity
void add_analysis_commands(Cli& cli);    // analysis.cpp: root-debt, verify, scenario-audit, next-work
void add_validate_commands(Cli& cli);    // validate.cpp: validate, calibrate
void add_simulate_commands(Cli& cli);    // simulate.cpp: simulate, experiment-protocol, experiment-run
void add_plan_command(Cli& cli);         // plan.cpp: plan
void add_zoo_commands(Cli& cli);         // zoo.cpp: workloads, hardware, workload import
void add_query_commands(Cli& cli);       // queries.cpp: list, search, list-presets
void add_estimate_command(Cli& cli);     // estimate.cpp: estimate
void add_serve_command(Cli& cli);        // serve.cpp: serve

}  // namespace gs::cli
