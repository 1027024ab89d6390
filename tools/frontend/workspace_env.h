// The one place a front end (the gpu-stack command line, the Python module) turns the command line, the
// environment and the build's defaults into a Workspace (runtime/workspace.h). Each file is found in this
// order: the command-line value when given, else its environment variable when set and not empty, else
// the default this build was configured with (the source tree's folders, the build's image and JIT module).
//
//   image            --image      GSTACK_IMAGE        <build>/model.gsimg
//   presets_dir      --presets    GSTACK_PRESETS      <source>/presets
//   data_dir                      GSTACK_DATA         <source>/data
//   runs_csv                      GSTACK_RUNS         empty: each command's default (validate's tables for the site,
//                                                     data/runs/calibration-runs.csv for estimate)
//   experiments_dir               GSTACK_EXPERIMENTS  <source>/experiments
//   site_assets_dir               GSTACK_SITE_ASSETS  <source>/site
//   chartjs_path                  GSTACK_CHARTJS      Debian's libjs-chart.js (CMake GSTACK_CHARTJS_PATH)
//   jit_module                    GSTACK_JIT_MODULE   the LLVM module this build made (empty here: the JIT's own)
//   serve_http_module             GSTACK_SERVE_HTTP_MODULE  serve's HTTP module this build made (empty here: serve's own)
//   (MPI module)                  GSTACK_MPI_MODULE   the MPI module this build made (mpi_module below: read
//                                                     before the command line, by main's gs::dist::Launch)
//   jit_cache_dir    --cache-dir  GSTACK_CACHE_DIR    $XDG_CACHE_HOME/gpu-stack, else $HOME/.cache/gpu-stack
//                                                     (per_user_cache_dir); the value `off` means no cache
//
// Commands with their own flag for one of these (--runs, --experiments, --chartjs) apply it over the
// workspace's value.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "runtime/workspace.h"

namespace gs::frontend {

// A variable's value; nullopt when it is unset or empty (an empty GSTACK_* variable means "not set").
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// The workspace with nothing given and nothing in the environment; `build_dir` is the build tree the
// binary or module belongs to (its model.gsimg).
Workspace build_defaults(const std::filesystem::path& build_dir);

struct WorkspaceFlags {
  std::string image, presets_dir;  // empty: not given
  std::string cache_dir;           // empty: not given; "off": no on-disk cache
};

// The per-user folder of the compiled-cone cache, as the XDG base directory rules place caches:
// $XDG_CACHE_HOME/gpu-stack when that variable is an absolute path, else $HOME/.cache/gpu-stack when HOME
// is one, else empty (no cache).
std::string per_user_cache_dir(const Environment& env);

// Each field of `defaults`, replaced by its environment variable, then by its flag. The cache folder has
// no build default: flag, else GSTACK_CACHE_DIR, else per_user_cache_dir; `off` at the level chosen turns
// the cache off (an empty jit_cache_dir).
Workspace resolve_workspace(const WorkspaceFlags& flags, const Workspace& defaults, const Environment& env);

// What the runtime's process-wide users of the workspace need before the first command runs: the JIT's
// module and on-disk cache, and the simulator's bindings file.
void install(const Workspace& ws);

// Whether an MPI launcher started this process: it leaves its rank in the environment (Open MPI's mpirun:
// OMPI_COMM_WORLD_SIZE; PMIx, srun --mpi=pmix or prterun: PMIX_RANK; PMI, srun --mpi=pmi2 or MPICH's
// hydra: PMI_SIZE).
bool under_mpi_launcher(const Environment& env);

// The MPI module (libgs_dist_mpi.so) a process started by a launcher opens: GSTACK_MPI_MODULE when set
// (an installed copy), else empty, which gs::dist::Launch takes as the module this build made.
std::string mpi_module(const Environment& env);

}  // namespace gs::frontend
