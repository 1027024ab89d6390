// The front end's Workspace: each file from the flag, else its GSTACK_* variable, else the build's default.
#include <doctest/doctest.h>

#include <map>

#include "tools/frontend/workspace_env.h"

namespace {

using gs::frontend::Environment;

Environment fake(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("with no flag and no variable every file is the build's default") {
  const gs::Workspace d = gs::frontend::build_defaults("/b");
  CHECK(d.image == "/b/model.gsimg");
  CHECK(d.presets_dir == GSTACK_SOURCE_DIR "/presets");
  CHECK(d.data_dir == GSTACK_SOURCE_DIR "/data");
  CHECK(d.runs_csv.empty());  // each command's own default
  CHECK(d.experiments_dir == GSTACK_SOURCE_DIR "/experiments");
  CHECK(d.site_assets_dir == GSTACK_SOURCE_DIR "/site");
  CHECK_FALSE(d.chartjs_path.empty());
  CHECK(d.jit_module.empty());  // the JIT's own: the module this build made
  CHECK(d.serve_http_module.empty());  // serve's own
  const gs::Workspace ws = gs::frontend::resolve_workspace({}, d, fake({}));
  CHECK(ws.image == d.image);
  CHECK(ws.presets_dir == d.presets_dir);
  CHECK(ws.data_dir == d.data_dir);
  CHECK(ws.sim_model_inputs() == GSTACK_SOURCE_DIR "/presets/sim/model-inputs.toml");
  CHECK(ws.serving_runs_csv() == GSTACK_SOURCE_DIR "/data/serving/serving-runs.csv");
  CHECK(ws.training_runs_csv() == GSTACK_SOURCE_DIR "/data/runs/calibration-runs.csv");
}

TEST_CASE("a variable replaces the default, a flag replaces the variable, an empty variable is unset") {
  const gs::Workspace d = gs::frontend::build_defaults("/b");
  const auto env = fake({{"GSTACK_IMAGE", "/e/m.gsimg"},
                         {"GSTACK_PRESETS", "/e/presets"},
                         {"GSTACK_DATA", "/e/data"},
                         {"GSTACK_RUNS", "/e/runs.csv"},
                         {"GSTACK_EXPERIMENTS", "/e/exp"},
                         {"GSTACK_SITE_ASSETS", "/e/site"},
                         {"GSTACK_CHARTJS", "/e/chart.js"},
                         {"GSTACK_JIT_MODULE", "/e/jit.so"},
                         {"GSTACK_SERVE_HTTP_MODULE", "/e/http.so"},
                         {"GSTACK_JIT_DUMP", "/e/ir"}});
  const gs::Workspace e = gs::frontend::resolve_workspace({}, d, env);
  CHECK(e.image == "/e/m.gsimg");
  CHECK(e.presets_dir == "/e/presets");
  CHECK(e.data_dir == "/e/data");
  CHECK(e.runs_csv == "/e/runs.csv");
  CHECK(e.training_runs_csv() == "/e/runs.csv");
  CHECK(e.experiments_dir == "/e/exp");
  CHECK(e.site_assets_dir == "/e/site");
  CHECK(e.chartjs_path == "/e/chart.js");
  CHECK(e.jit_module == "/e/jit.so");
  CHECK(e.serve_http_module == "/e/http.so");
  CHECK(e.jit_dump_dir == "/e/ir");
  CHECK(d.jit_dump_dir.empty());  // no dump unless asked
  CHECK(e.sim_model_inputs() == "/e/presets/sim/model-inputs.toml");

  const gs::Workspace f = gs::frontend::resolve_workspace({"/f/m.gsimg", "/f/presets", ""}, d, env);
  CHECK(f.image == "/f/m.gsimg");
  CHECK(f.presets_dir == "/f/presets");
  CHECK(f.data_dir == "/e/data");  // no flag for it: the variable still applies

  const gs::Workspace g = gs::frontend::resolve_workspace({}, d, fake({{"GSTACK_IMAGE", ""}, {"GSTACK_PRESETS", ""}}));
  CHECK(g.image == d.image);
  CHECK(g.presets_dir == d.presets_dir);
}

TEST_CASE("an MPI launcher is recognised by the variable it leaves") {
  CHECK_FALSE(gs::frontend::under_mpi_launcher(fake({})));
  CHECK(gs::frontend::under_mpi_launcher(fake({{"OMPI_COMM_WORLD_SIZE", "2"}})));
  CHECK(gs::frontend::under_mpi_launcher(fake({{"PMIX_RANK", "0"}})));
  CHECK(gs::frontend::under_mpi_launcher(fake({{"PMI_SIZE", "3"}})));
  CHECK_FALSE(gs::frontend::under_mpi_launcher(fake({{"OMPI_COMM_WORLD_RANK_TYPO", "1"}})));
}

TEST_CASE("the compiled-cone cache: --cache-dir, else GSTACK_CACHE_DIR, else the per-user folder, and off is none") {
  const gs::Workspace d = gs::frontend::build_defaults("/b");
  CHECK(d.jit_cache_dir.empty());  // no build default: it depends on the user
  const auto at = [&](gs::frontend::WorkspaceFlags flags, std::map<std::string, std::string> vars) {
    return gs::frontend::resolve_workspace(flags, d, fake(std::move(vars))).jit_cache_dir;
  };
  // XDG base directories: $XDG_CACHE_HOME when absolute, else ~/.cache; a relative XDG_CACHE_HOME is ignored.
  CHECK(at({}, {{"HOME", "/home/u"}}) == "/home/u/.cache/gpu-stack");
  CHECK(at({}, {{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/x/cache"}}) == "/x/cache/gpu-stack");
  CHECK(at({}, {{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "rel/cache"}}) == "/home/u/.cache/gpu-stack");
  CHECK(at({}, {}).empty());                       // no HOME, no XDG_CACHE_HOME: no cache rather than a guess
  CHECK(at({}, {{"HOME", "relative"}}).empty());
  CHECK(at({}, {{"HOME", "/home/u"}, {"GSTACK_CACHE_DIR", "/e/cache"}}) == "/e/cache");
  CHECK(at({}, {{"HOME", "/home/u"}, {"GSTACK_CACHE_DIR", "off"}}).empty());
  CHECK(at({}, {{"HOME", "/home/u"}, {"GSTACK_CACHE_DIR", ""}}) == "/home/u/.cache/gpu-stack");  // empty: unset
  CHECK(at({"", "", "/f/cache"}, {{"GSTACK_CACHE_DIR", "off"}}) == "/f/cache");  // the flag wins over the variable
  CHECK(at({"", "", "off"}, {{"GSTACK_CACHE_DIR", "/e/cache"}, {"HOME", "/home/u"}}).empty());
}

TEST_CASE("GSTACK_MPI_MODULE names the MPI module; unset, the build's own (empty)") {
  CHECK(gs::frontend::mpi_module(fake({})).empty());
  CHECK(gs::frontend::mpi_module(fake({{"GSTACK_MPI_MODULE", "/opt/gs/libgs_dist_mpi.so"}})) == "/opt/gs/libgs_dist_mpi.so");
}
