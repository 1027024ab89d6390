// What every gpu-stack command shares: the options each subcommand repeats (--json, --image, --presets,
// --evaluator, --si), the scenario options (--preset, --workload, --assign, --variant), where the image and
// the presets are found, and how a registered command is run once the command line is parsed.
// Exit status of every command: 0 success, 1 findings (violated constraints, issues, no feasible layout),
// 2 bad usage or bad input (a UsageError, or any exception from the libraries; see main.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/api/session.h"
#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/workspace.h"

namespace gs::cli {

// Bad input found by the command itself (not by the library); exits 2 like the library's errors.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The options every subcommand takes; one instance, since exactly one subcommand is parsed.
struct Common {
  bool json = false;
  bool si = false;
  std::string image;
  std::string presets_dir;
  std::string cache_dir;  // --cache-dir: the compiled-cone cache's folder, or "off"
};

using ScenarioInputs = gs::api::ScenarioInputs;

// A registered subcommand: `run` is called when `app` was parsed; `distributed` says whether it splits
// its work across MPI ranks (every other command runs on rank 0 alone).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
  std::function<bool()> distributed;
};

// The command line being built: the app, the shared options and the commands registered so far, in the
// order they were added (which is the order --help and the completion script list them).
struct Cli {
  explicit Cli(CLI::App& a) : app(a) {}
  CLI::App& app;
  Common common;
  std::vector<Command> commands;

  // Registers what to run when `cmd` is parsed. Options are attached by the caller (add_common and
  // friends), in the order --help shows them.
  void on_parsed(CLI::App* cmd, std::function<int()> run, std::function<bool()> distributed = {});
};

// State that a subcommand's options write into and its run reads, kept alive by the closures.
template <class T>
std::shared_ptr<T> state() {
  return std::make_shared<T>();
}

void add_common(CLI::App* cmd, Common& c);
void add_scenario(CLI::App* cmd, ScenarioInputs& s, bool with_preset);
// --threads and friends: 1 .. gs::kMaxThreads.
CLI::Range thread_range();

// Where the files are: --image, --presets and --cache-dir over the GSTACK_* environment over this build's defaults
// (tools/frontend/workspace_env.h says which variable moves which file).
Workspace workspace(const Common& c);
// --image, else $GSTACK_IMAGE, else model.gsimg of the build this binary belongs to.
std::string image_path(const Common& c);
Registry load_registry(const Common& c);
// --presets, else $GSTACK_PRESETS, else the source tree's presets/.
std::string presets_dir(const Common& c);
PresetLibrary library(const Registry& reg, const Common& c);

}  // namespace gs::cli
