// stats, list, search and list-presets: what the compiled model and the presets directory contain.
#include <iostream>

#include "runtime/analysis/catalog.h"
#include "runtime/report.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

int run_stats(const Common& c) {
  gs::Registry reg = load_registry(c);
  std::cout << (c.json ? gs::stats_json(reg, image_path(c)) + "\n" : gs::stats_text(reg, image_path(c)));
  return 0;
}

int run_list(const Common& c, const gs::VariableQuery& q) {
  gs::Registry reg = load_registry(c);
  auto vars = gs::find_variables(reg, q);
  std::cout << (c.json ? gs::variables_json(reg, q, vars) : gs::variables_text(reg, vars));
  return 0;
}

int run_list_presets(const Common& c, const std::string& sub) {
  gs::Registry reg = load_registry(c);
  auto presets = gs::preset_catalog(library(reg, c), presets_dir(c), sub);
  std::cout << (c.json ? gs::presets_json(presets) : gs::presets_text(presets));
  return 0;
}

}  // namespace

void add_stats_command(Cli& cli) {
  const Common& common = cli.common;
  auto* stats = cli.app.add_subcommand("stats", "Counts of systems, variables, relations, roots and leaves; coverage");
  add_common(stats, cli.common);
  cli.on_parsed(stats, [&common] { return run_stats(common); });
}

void add_query_commands(Cli& cli) {
  struct State {
    gs::VariableQuery query;
    std::string presets_sub;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* list = cli.app.add_subcommand("list", "List variables by system, name prefix, kind or unit dimension");
  auto* search = cli.app.add_subcommand("search", "Find variables whose name, symbol, description or doc contains every word of TEXT");
  search->add_option("text", st->query.text, "words to look for (case-insensitive)")->required();
  for (auto* cmd : {list, search}) {
    cmd->add_option("--system", st->query.system, "only this system (e.g. training)");
    cmd->add_option("--prefix", st->query.prefix, "only names starting with this (e.g. econ.power.)");
    cmd->add_option("--kind", st->query.kind, "root, derived or constant")->check(CLI::IsMember({"root", "derived", "constant"}));
    cmd->add_option("--unit", st->query.unit, "only variables of this unit's dimension (W finds MW and W)");
    add_common(cmd, cli.common);
    cli.on_parsed(cmd, [st, &common] { return run_list(common, st->query); });
  }

  auto* list_presets = cli.app.add_subcommand("list-presets", "List the presets with their description and source");
  list_presets->add_option("--dir", st->presets_sub, "only this folder of the presets directory (e.g. hardware)");
  add_common(list_presets, cli.common);
  cli.on_parsed(list_presets, [st, &common] { return run_list_presets(common, st->presets_sub); });
}

}  // namespace gs::cli
