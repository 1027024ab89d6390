#include "tools/frontend/workspace_env.h"

#include <cstdlib>

#include "runtime/jit/jit.h"
#include "runtime/jit/object_cache.h"
#include "runtime/sim/inputs.h"

namespace gs::frontend {

namespace fs = std::filesystem;

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value || !*value) return std::nullopt;
    return std::string(value);
  };
}

Workspace build_defaults(const fs::path& build_dir) {
  Workspace ws;
  ws.image = (build_dir / "model.gsimg").string();
  ws.presets_dir = GSTACK_SOURCE_DIR "/presets";
  ws.data_dir = GSTACK_SOURCE_DIR "/data";
  ws.experiments_dir = GSTACK_SOURCE_DIR "/experiments";
  ws.site_assets_dir = GSTACK_SOURCE_DIR "/site";
  ws.chartjs_path = GSTACK_CHARTJS_PATH;
  return ws;
}

Workspace resolve_workspace(const WorkspaceFlags& flags, const Workspace& defaults, const Environment& env) {
  Workspace ws = defaults;
  const auto from_env = [&](std::string& field, const char* name) {
    if (auto value = env(name)) field = *value;
  };
  from_env(ws.image, "GSTACK_IMAGE");
  from_env(ws.presets_dir, "GSTACK_PRESETS");
  from_env(ws.data_dir, "GSTACK_DATA");
  from_env(ws.runs_csv, "GSTACK_RUNS");
  from_env(ws.experiments_dir, "GSTACK_EXPERIMENTS");
  from_env(ws.site_assets_dir, "GSTACK_SITE_ASSETS");
  from_env(ws.chartjs_path, "GSTACK_CHARTJS");
  from_env(ws.jit_module, "GSTACK_JIT_MODULE");
  from_env(ws.serve_http_module, "GSTACK_SERVE_HTTP_MODULE");
  from_env(ws.jit_dump_dir, "GSTACK_JIT_DUMP");
  if (!flags.image.empty()) ws.image = flags.image;
  if (!flags.presets_dir.empty()) ws.presets_dir = flags.presets_dir;
  std::string cache = flags.cache_dir;
  if (cache.empty()) cache = env("GSTACK_CACHE_DIR").value_or(per_user_cache_dir(env));
  ws.jit_cache_dir = cache == "off" ? "" : cache;
  return ws;
}

std::string per_user_cache_dir(const Environment& env) {
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
  if (auto xdg = env("XDG_CACHE_HOME"); xdg && fs::path(*xdg).is_absolute()) return (fs::path(*xdg) / "gpu-stack").string();
  if (auto home = env("HOME"); home && fs::path(*home).is_absolute()) return (fs::path(*home) / ".cache" / "gpu-stack").string();
  return "";
}

void install(const Workspace& ws) {
  use_jit_module(ws.jit_module);
  set_jit_cache_dir(ws.jit_cache_dir);
  set_jit_dump_dir(ws.jit_dump_dir);
  sim::use_model_inputs(ws.sim_model_inputs());
}

bool under_mpi_launcher(const Environment& env) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (env(name)) return true;
  return false;
}

std::string mpi_module(const Environment& env) { return env("GSTACK_MPI_MODULE").value_or(""); }

}  // namespace gs::frontend
