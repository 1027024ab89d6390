// Where the runtime's files are: plain values, set once by a front end (tools/frontend/ reads the
// command line, the GSTACK_* environment variables and the build's defaults; docs/runtime.md "Files and
// environment"). No library under runtime/ reads the environment or guesses a path: each takes what it
// needs from a Workspace, or from an options struct the front end filled from one.
#pragma once

#include <string>

namespace gs {

struct Workspace {
  std::string image;            // the registry image (model.gsimg)
  std::string presets_dir;      // the preset library's root (presets/)
  std::string data_dir;         // published runs and fixtures (data/): validate's and calibrate's default tables
  std::string runs_csv;         // one table of published training runs chosen instead of each command's default; empty:
                                // the site validates validate's default tables, estimate reads training_runs_csv()
  std::string experiments_dir;  // frozen experiment protocols (experiments/)
  std::string site_assets_dir;  // the observatory's static files (site/)
  std::string chartjs_path;     // the Chart.js build bundled into an exported site
  std::string jit_module;       // the LLVM module the JIT opens; empty: the one this build made
  std::string serve_http_module;  // the HTTP server module `serve` opens (libgs_serve_http.so); empty: the one this build made
  std::string jit_cache_dir;    // the on-disk cache of compiled cones (runtime/jit/object_cache.h); empty: none
  std::string jit_dump_dir;     // where the JIT writes each cone's optimised IR (debugging); empty: nowhere

  // Files the workspace implies.
  std::string serving_runs_csv() const;     // data_dir/serving/serving-runs.csv
  std::string training_runs_csv() const;    // runs_csv when set, else data_dir/runs/calibration-runs.csv
  std::string sim_model_inputs() const;     // presets_dir/sim/model-inputs.toml
};

}  // namespace gs
