#include "tools/gpu-stack/cli.h"

#include <filesystem>

#include "runtime/uq/plan.h"
#include "tools/frontend/workspace_env.h"
#include "runtime/workers.h"

namespace gs::cli {

namespace fs = std::filesystem;

void Cli::on_parsed(CLI::App* cmd, std::function<int()> run, std::function<bool()> distributed) {
  commands.push_back({cmd, std::move(run), std::move(distributed)});
}

void add_common(CLI::App* cmd, Common& c) {
  cmd->add_flag("--json", c.json, "print JSON (SI values with unit strings) instead of text");
  cmd->add_flag("--si", c.si, "text: show each value in its variable's declared unit (SI prefixes only), not the field's usual unit");
  cmd->add_option("--image", c.image, "registry image to read (default: $GSTACK_IMAGE, else model.gsimg of this build)");
  cmd->add_option("--presets", c.presets_dir, "directory of presets (default: $GSTACK_PRESETS, else the source tree's presets/)");
  cmd->add_option_function<std::string>(
         "--evaluator", [](const std::string& v) { gs::set_evaluator_policy(*gs::parse_evaluator_policy(v)); },
         "how cones are evaluated: auto (default: the reference interpreter for small batches, the JIT for "
         "large ones, docs/runtime.md), interpreter, or jit")
      ->check(CLI::IsMember({"auto", "interpreter", "jit"}));
  cmd->add_option("--cache-dir", c.cache_dir,
                  "folder where JIT-compiled cones are kept for later runs, or off (default: $GSTACK_CACHE_DIR, else "
                  "$XDG_CACHE_HOME/gpu-stack, else ~/.cache/gpu-stack)");
}

void add_scenario(CLI::App* cmd, ScenarioInputs& s, bool with_preset) {
  if (with_preset)
  {
    cmd->add_option("--preset", s.presets, "preset name or TOML file; repeat to layer them (later wins)")->allow_extra_args(false);
    cmd->add_option("--workload", s.workloads, "shipped workload by name (llama3-405b or llama3_405b), layered over the presets")->allow_extra_args(false);
  }
  cmd->add_option("--assign", s.assigns, "NAME=VALUE[ UNIT]; a bare value is in the variable's display unit")->allow_extra_args(false);
  cmd->add_option("--variant", s.variants, "NAME=KEY: select a variant relation")->allow_extra_args(false);
}

CLI::Range thread_range() { return CLI::Range(1u, gs::kMaxThreads); }

namespace {

// build/bin/gpu-stack reads build/model.gsimg, so a fresh build works without flags.
fs::path build_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path().parent_path();
}

}  // namespace

Workspace workspace(const Common& c) {
  return frontend::resolve_workspace({c.image, c.presets_dir, c.cache_dir}, frontend::build_defaults(build_dir()), frontend::process_environment());
}

std::string image_path(const Common& c) { return workspace(c).image; }

Registry load_registry(const Common& c) { return gs::api::load_registry(image_path(c)); }

std::string presets_dir(const Common& c) { return workspace(c).presets_dir; }

PresetLibrary library(const Registry& reg, const Common& c) { return PresetLibrary(reg, presets_dir(c)); }

}  // namespace gs::cli
