// workloads, hardware and workload import: the shipped zoo of presets with their sources, and a Hugging
// Face config.json turned into a workload preset.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "image/atomic_file.h"
#include "runtime/zoo.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

namespace fs = std::filesystem;

// The shipped zoo: one line per preset with its description and source.
// Several folders (hardware with the cluster and capex packs of the systems it ships in) list one after
// another, each under its folder's name; JSON ids carry the folder.
int run_catalog(const Common& c, const std::vector<std::string>& folders) {
  gs::Registry reg = load_registry(c);
  std::vector<gs::zoo::CatalogEntry> entries;
  for (const auto& folder : folders) {
    auto some = gs::zoo::catalog(library(reg, c), folder);
    entries.insert(entries.end(), some.begin(), some.end());
  }
  if (c.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : entries) {
      nlohmann::json j = {{"id", e.id}, {"name", e.name}, {"description", e.description}, {"source", e.source}};
      if (!e.error.empty()) j["error"] = e.error;
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::string shown;
    for (const auto& e : entries) {
      const std::string folder = e.id.substr(0, e.id.find('/'));
      if (folders.size() > 1 && folder != shown) std::cout << (shown.empty() ? "" : "\n") << folder << ":\n";
      shown = folder;
      std::cout << e.id.substr(folder.size() + 1) << "  " << (e.error.empty() ? e.description : "(does not load: " + e.error + ")") << "\n";
      if (e.error.empty()) std::cout << "    source: " << e.source << "\n";
    }
  }
  for (const auto& e : entries)
    if (!e.error.empty()) return 1;
  return 0;
}

int run_workload_import(const Common& c, const std::string& config_path, const std::string& out_path, std::string name) {
  std::ifstream in(config_path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + config_path + "'");
  std::stringstream text;
  text << in.rdbuf();
  if (name.empty()) name = fs::path(out_path.empty() ? config_path : out_path).stem().string();
  const std::string map_path = (fs::path(presets_dir(c)) / "import" / "hf_config.toml").string();
  gs::zoo::ImportResult r = gs::zoo::import_hf_config(text.str(), config_path, map_path, name);
  if (out_path.empty()) std::cout << r.toml;
  else gs::write_file_atomic(out_path, r.toml);
  if (!r.not_found.empty()) {
    std::cerr << "note: not in the configuration (left to the scenario):";
    for (const auto& v : r.not_found) std::cerr << " " << v;
    std::cerr << "\n";
  }
  return 0;
}

}  // namespace

void add_zoo_commands(Cli& cli) {
  struct State {
    std::string config, out, name;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* workloads = cli.app.add_subcommand("workloads", "List the shipped workload presets with descriptions and sources");
  add_common(workloads, cli.common);
  cli.on_parsed(workloads, [&common] { return run_catalog(common, {"workload"}); });
  auto* hardware = cli.app.add_subcommand("hardware", "List the shipped hardware presets, and the cluster and capex packs of the systems they ship in, with descriptions and sources");
  add_common(hardware, cli.common);
  cli.on_parsed(hardware, [&common] { return run_catalog(common, {"hardware", "cluster", "capex"}); });

  auto* workload = cli.app.add_subcommand("workload", "Workload presets: import a Hugging Face config.json");
  workload->require_subcommand(1);
  auto* import = workload->add_subcommand("import", "Turn a Hugging Face-style config.json (dense or MoE) into a workload preset");
  import->add_option("config", st->config, "config.json to read")->required();
  import->add_option("-o,--output", st->out, "preset file to write (atomically); default stdout");
  import->add_option("--name", st->name, "preset name (default: the output or config file's stem)");
  add_common(import, cli.common);
  cli.on_parsed(import, [st, &common] { return run_workload_import(common, st->config, st->out, st->name); });
}

}  // namespace gs::cli
