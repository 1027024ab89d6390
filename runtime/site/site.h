// `gpu-stack export site`: a self-contained static website (HTML, CSS, JS and JSON data) generated from
// the registry image and the project's own outputs. It opens from file:// (data is also written as
// classic scripts that assign a global, since browsers refuse fetch() and ES modules there) and from
// any static server, with no network access. docs/observatory.md describes the views and data files.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/registry.h"

namespace gs::site {

struct SiteOptions {
  std::string out_dir;                  // created if absent; only files the exporter owns are replaced
  std::vector<std::string> presets;     // each one a scenario the pages can pick; empty: the default preset
  std::string presets_dir;
  std::string image_path;               // shown in the site's provenance
  std::string runs_csv;                 // published runs for the validation view (--runs: must be readable)
  std::string default_runs_csv;         // used when runs_csv is empty (Workspace::runs_csv, $GSTACK_RUNS); unreadable: a note
  std::string data_dir;                 // when both are empty: validate's default tables under it (Workspace::data_dir)
  std::string experiments_dir;          // frozen protocols (Workspace::experiments_dir); empty: no experiments view
  bool run_experiments = false;         // also run the experiments that have a virtual engine (E001, E001-RECOVERY-V2, E002)
  std::vector<std::string> artifacts;   // extra run-artifact files or folders to show
  size_t interval_samples = 20000;      // Monte Carlo samples for the 90% intervals of uncertain presets
  std::string assets_dir;               // the static files to copy (Workspace::site_assets_dir)
  std::string chartjs_path;             // Chart.js to bundle (--chartjs, else Workspace::chartjs_path)
};

struct SiteSummary {
  std::vector<std::string> files;  // written, relative to out_dir
  size_t bytes = 0;
  std::vector<std::string> notes;  // views left empty, and why
};

// Throws std::runtime_error (bad output folder, missing assets) or the library errors of bad presets.
SiteSummary export_site(const Registry& reg, const SiteOptions& opt);

// The calculator's stack machine, in C++: evaluates one postfix expression over `values` (indexed by
// variable id; NaN where unknown) with local slot `local`. The page's JS does the same; the exporter
// uses this to check the program it writes against the resolver before writing it.
double eval_postfix(const Expr& e, const std::vector<double>& values, double local = 0);

}  // namespace gs::site
