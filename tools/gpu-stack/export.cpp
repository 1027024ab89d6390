// export dot|json|site: a variable's dependency cone as Graphviz DOT or JSON, or the observatory site.
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "image/atomic_file.h"
#include "runtime/export.h"
#include "runtime/resolver.h"
#include "runtime/site/site.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {
namespace {

namespace fs = std::filesystem;

int run_export(const Common& c, const std::string& format, const std::vector<std::string>& target_names, const gs::ConeExport& base,
               const std::string& output) {
  gs::Registry reg = load_registry(c);
  gs::ConeExport spec = base;
  spec.root = gs::lookup_variable(reg, target_names.front(), "target variable");
  for (size_t i = 1; i < target_names.size(); ++i) spec.more_roots.push_back(gs::lookup_variable(reg, target_names[i], "target variable"));
  const std::string& target_name = target_names.front();
  std::string text = format == "dot" ? gs::export_dot(reg, spec) : gs::export_json(reg, spec);
  if (c.json && format == "dot") {
    // Machine-readable wrapper so every command can be consumed as JSON.
    std::string escaped;
    for (char ch : text) {
      if (ch == '"' || ch == '\\') escaped += '\\', escaped += ch;
      else if (ch == '\n') escaped += "\\n";
      else escaped += ch;
    }
    text = "{\n  \"format\": \"dot\",\n  \"root\": \"" + target_name + "\",\n  \"dot\": \"" + escaped + "\"\n}\n";
  }
  if (output.empty() || output == "-") {
    std::cout << text;
  } else {
    gs::write_file_atomic(output, text);
    std::cerr << "wrote " << output << " (" << text.size() << " bytes)\n";
  }
  return 0;
}

// The observatory site: a static bundle generated from the image and the project's outputs.
int run_export_site(const Common& c, gs::site::SiteOptions opt) {
  gs::Registry reg = load_registry(c);
  const gs::Workspace ws = workspace(c);
  opt.image_path = ws.image;
  opt.presets_dir = ws.presets_dir;
  opt.default_runs_csv = ws.runs_csv;
  opt.data_dir = ws.data_dir;
  opt.experiments_dir = ws.experiments_dir;
  opt.assets_dir = ws.site_assets_dir;
  if (opt.chartjs_path.empty()) opt.chartjs_path = ws.chartjs_path;
  gs::site::SiteSummary sum = gs::site::export_site(reg, opt);
  for (const auto& n : sum.notes) std::cerr << "note: " << n << "\n";
  std::string index = (fs::absolute(opt.out_dir) / "index.html").lexically_normal().string();
  if (c.json) {
    nlohmann::ordered_json j = {{"out", fs::absolute(opt.out_dir).lexically_normal().string()}, {"index", index},
                                {"files", sum.files}, {"bytes", sum.bytes}, {"notes", sum.notes}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "wrote the site: " << sum.files.size() << " files, " << sum.bytes << " bytes\n"
              << "open file://" << index << "\n";
  }
  return 0;
}

}  // namespace

void add_export_command(Cli& cli) {
  struct State {
    std::string format, output;
    std::vector<std::string> targets;
    gs::site::SiteOptions site;
    gs::ConeExport cone;
  };
  auto st = state<State>();
  const Common& common = cli.common;

  auto* exp = cli.app.add_subcommand("export", "Write a variable's dependency cone as Graphviz DOT or JSON, or the observatory site");
  exp->add_option("format", st->format, "dot, json, or site (a static website; needs --out)")->required()->check(CLI::IsMember({"dot", "json", "site"}));
  exp->add_option("target", st->targets, "root variables of the cone (dot and json); several give the union of their cones");
  exp->add_option("--out", st->site.out_dir, "site: folder to write (created; only the site's own files are replaced)");
  exp->add_option("--preset", st->site.presets, "site: a scenario the pages offer (repeatable; default: the default preset)")->allow_extra_args(false);
  exp->add_option("--runs", st->site.runs_csv, "site: CSV of published runs for the validation view (default: $GSTACK_RUNS, else the tables `validate` reads: data/runs/calibration-runs.csv and calibration-supplement.csv)");
  exp->add_flag("--run-experiments", st->site.run_experiments, "site: also run the experiments that have a virtual engine and show their artifacts");
  exp->add_option("--artifacts", st->site.artifacts, "site: run-artifact file or folder to show (repeatable)")->allow_extra_args(false);
  exp->add_option("--chartjs", st->site.chartjs_path, "site: Chart.js file to bundle (default: $GSTACK_CHARTJS, else Debian's libjs-chart.js)");
  exp->add_flag("--dependents", st->cone.dependents, "export the variables that depend on the target instead");
  exp->add_flag("--constraints", st->cone.constraints, "let constraints link variables too");
  exp->add_option("-o,--output", st->output, "file to write (atomically); default stdout");
  add_common(exp, cli.common);
  cli.on_parsed(exp, [st, &common] {
    if (st->format == "site") {
      if (st->site.out_dir.empty()) throw UsageError("export site needs --out DIR");
      if (!st->targets.empty()) throw UsageError("export site takes no target; pick scenarios with --preset");
      return run_export_site(common, st->site);
    }
    if (st->targets.empty()) throw UsageError("export " + st->format + " needs a TARGET variable");
    if (!st->site.out_dir.empty() || !st->site.presets.empty()) throw UsageError("--out and --preset belong to export site");
    return run_export(common, st->format, st->targets, st->cone, st->output);
  });
}

}  // namespace gs::cli
