#include "runtime/analysis/next_work.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/analysis/influence.h"
#include "runtime/analysis/output.h"
#include "runtime/analysis/root_debt.h"
#include "runtime/analysis/scenario.h"
#include "runtime/analysis/verify.h"
#include "runtime/presets.h"
#include "runtime/resolver.h"

#ifdef GSTACK_HAVE_VALIDATE
#include "runtime/validate/runs.h"
#include "runtime/validate/validate.h"
#endif

namespace gs {

using analysis_output::json;

namespace {

// Inputs below these elasticities move the target by less than 1% (0.1%) per 10% change; they are not
// where the next hour of work pays off.
constexpr double kUnsourcedThreshold = 0.01;
constexpr double kUncertaintyThreshold = 0.1;
constexpr size_t kResiduals = 5;  // the worst fits worth a look at once

std::string join_names(const Registry& reg, const std::vector<uint32_t>& vars, size_t limit = 3) {
  std::string s;
  for (size_t i = 0; i < vars.size() && i < limit; ++i) s += (i ? ", " : "") + reg.var(vars[i]).name;
  if (vars.size() > limit) s += fmt::format(", +{} more", vars.size() - limit);
  return s;
}

struct Blocking {
  std::vector<uint32_t> targets;
  std::string category;
  size_t dependents = 0;
};

struct Influential {
  double elasticity = 0;  // the largest in magnitude over the targets
  uint32_t target = 0;
  bool seen = false;
  bool has_distribution = false;
};

}  // namespace

NextWorkReport next_work(const Registry& reg, const NextWorkRequest& req) {
  NextWorkReport nw;
  PresetLibrary lib(reg, req.presets_dir);
  nw.preset = req.preset.empty() ? default_preset_name(req.presets_dir) : req.preset;
  AnalysisScenario scenario = load_scenario(reg, lib, req.presets_dir, {nw.preset});
  const Preset& preset = scenario.presets.front();
  const std::string preset_arg = " --preset " + nw.preset;

  // Influence is weighed on the headline targets (--target, else the model's first exported headline,
  // cost per token, else the preset's targets) so that intermediate quantities do not crowd the list; blocking inputs count
  // for every target the preset reports as well.
  for (const auto& t : req.targets) nw.targets.push_back(lookup_variable(reg, t, "target variable"));
  if (nw.targets.empty()) {
    if (const auto heads = reg.exports(kExportHeadline); !heads.empty()) nw.targets.push_back(heads.front().var);
    else
      for (const auto& [label, v] : preset.targets) nw.targets.push_back(v);
  }
  if (nw.targets.empty()) throw PresetError("preset '" + nw.preset + "' names no [targets]; pass --target NAME");
  for (uint32_t t : nw.targets) nw.target_names.push_back(reg.var(t).name);
  std::vector<uint32_t> examined = nw.targets;
  for (const auto& [label, v] : preset.targets)
    if (std::find(examined.begin(), examined.end(), v) == examined.end()) examined.push_back(v);

  // 0. The model's own gates (the fast profile). Its preset check is left out: gaps in presets are
  // what the blocking items below and scenario-audit report, one input at a time.
  VerifyRequest vreq;
  for (const auto& c : verify_checks(reg, vreq)) {
    if (c.status != "fail") continue;
    nw.items.push_back(WorkItem{"verify-failure", "Fix the failing verify check '" + c.name + "'",
                                c.summary + (c.details.empty() ? "" : "; first: " + c.details.front()), "gpu-stack verify --profile fast",
                                0, double(c.details.size())});
  }

  // 1-4. Influence of every input on every target under the scenario.
  const Graph graph(reg);
  std::map<uint32_t, Blocking> blocking;
  std::map<uint32_t, Influential> influential;
  for (uint32_t t : examined) {
    const bool headline = std::find(nw.targets.begin(), nw.targets.end(), t) != nw.targets.end();
    InfluenceResult r = influence(reg, scenario.assignments, scenario.variants, t, graph, scenario.uncertain);
    for (const auto& in : r.inputs) {
      if (in.status == "missing") {
        Blocking& b = blocking[in.var];
        b.targets.push_back(t), b.category = in.category, b.dependents = in.dependents;
        continue;
      }
      if (!headline || !in.elasticity) continue;
      Influential& f = influential[in.var];
      if (!f.seen || std::fabs(*in.elasticity) > std::fabs(f.elasticity)) f.elasticity = *in.elasticity, f.target = t, f.seen = true;
      f.has_distribution = in.distribution.has_value();
    }
  }
  for (const auto& [v, b] : blocking) {
    const std::string& name = reg.var(v).name;
    const std::string title = b.category == "variant-family"      ? "Select a variant for " + name
                              : b.category == "symbolic-boundary" ? "Give " + name + " (or the inputs of its relation) a sourced value"
                                                                  : "Give " + name + " a sourced value";
    nw.items.push_back(WorkItem{
        "blocking-input", title,
        fmt::format("no value under {}; blocks {}; family {}, {} boundary; {} dependents", nw.preset, join_names(reg, b.targets),
                    family_of(name), b.category, b.dependents),
        "gpu-stack resolve " + reg.var(b.targets.front()).name + preset_arg + " --missing", 1,
        double(b.targets.size()) * 1e6 + double(b.dependents)});
  }
  for (const auto& [v, f] : influential) {
    const double e = std::fabs(f.elasticity);
    auto origin = scenario.origins.find(v);
    const bool sourced = origin != scenario.origins.end() && origin->second.sourced;
    const std::string who = origin == scenario.origins.end() ? "the scenario" : origin->second.layer;
    const std::string shown = analysis_output::signed_number(f.elasticity);
    const std::string command = "gpu-stack root-debt" + preset_arg + " --target " + reg.var(f.target).name;
    if (!sourced && e >= kUnsourcedThreshold) {
      nw.items.push_back(WorkItem{"unsourced-input", "Find a source for " + reg.var(v).name,
                                  fmt::format("elasticity {} of {}; set by {}, which states no source{}", shown, reg.var(f.target).name, who,
                                              f.has_distribution ? "" : "; no uncertainty stated"),
                                  command, 2, e});
    } else if (sourced && !f.has_distribution && e >= kUncertaintyThreshold) {
      nw.items.push_back(WorkItem{"uncertainty-missing", "State the uncertainty of " + reg.var(v).name,
                                  fmt::format("elasticity {} of {}; sourced by {} but given as a point value, so its share of "
                                              "the output variance is unknown",
                                              shown, reg.var(f.target).name, who),
                                  command, 4, e});
    }
  }

  // 3. The weakest fits: the published runs the model predicts worst (their primary throughput metric).
  if (req.runs_path.empty()) {
    nw.notes.push_back("calibration residuals: not examined; pass --runs FILE.csv (e.g. data/runs/calibration-runs.csv)");
  } else {
#ifdef GSTACK_HAVE_VALIDATE
    const auto report = validate::run_validation(reg, lib, validate::read_runs(req.runs_path), req.runs_path);
    std::vector<const validate::RowResult*> fitted;
    for (const auto& row : report.rows)
      if (row.built() && row.primary && *row.primary < row.metrics.size()) fitted.push_back(&row);
    std::sort(fitted.begin(), fitted.end(), [](const validate::RowResult* a, const validate::RowResult* b) {
      const double x = a->metrics[*a->primary].ape, y = b->metrics[*b->primary].ape;
      return x != y ? x > y : a->scenario.id < b->scenario.id;
    });
    auto median = report.summary.find("throughput");
    for (size_t i = 0; i < fitted.size() && i < kResiduals; ++i) {
      const auto& row = *fitted[i];
      const auto& m = row.metrics[*row.primary];
      nw.items.push_back(WorkItem{
          "calibration-residual",
          fmt::format("Explain the {:.1f}% {} error on published run {}", m.ape, m.observation.metric, row.scenario.id),
          fmt::format("predicted {:.4g} vs reported {:.4g} {}; group {}, tier {}{}", m.predicted, m.observation.reported,
                      m.observation.unit, row.scenario.group, row.scenario.tier,
                      median == report.summary.end() ? std::string()
                                                      : fmt::format("; median throughput error over {} runs {:.1f}%",
                                                                    median->second.n, median->second.median_ape)),
          "gpu-stack validate --runs " + req.runs_path, 3, m.ape});
    }
    nw.notes.push_back(fmt::format("calibration residuals: {} of {} runs in {} could be predicted", fitted.size(), report.rows_read,
                                   req.runs_path));
#else
    nw.notes.push_back("calibration residuals: skipped (this build has no validation library)");
#endif
  }

  // 5. The heaviest family of registry roots, the reference's fallback priority.
  auto families = root_families(reg, root_debt_rows(reg, graph));
  if (!families.empty()) {
    const auto& f = families.front();
    std::vector<uint32_t> top;
    for (size_t i = 0; i < f.members.size() && i < 3; ++i) top.push_back(f.members[i].var);
    nw.items.push_back(WorkItem{"root-debt", "Pay down the heaviest root family '" + f.family + "'",
                                fmt::format("{} root inputs with {} transitive dependents in all; heaviest: {}", f.members.size(),
                                            f.total_weight, join_names(reg, top)),
                                "gpu-stack root-debt --families", 5, double(f.total_weight)});
  }

  std::stable_sort(nw.items.begin(), nw.items.end(), [](const WorkItem& a, const WorkItem& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    if (a.weight != b.weight) return a.weight > b.weight;
    return a.title < b.title;
  });
  nw.shown = std::min(req.limit, nw.items.size());
  return nw;
}

void to_json(json& j, const NextWorkReport& r) {
  j = json{{"preset", r.preset}, {"targets", r.target_names}, {"item_count", r.items.size()}, {"shown", r.shown}};
  j["items"] = json::array();
  for (size_t i = 0; i < r.shown && i < r.items.size(); ++i) {
    const auto& it = r.items[i];
    json ij{{"rank", i + 1}, {"kind", it.kind}, {"title", it.title}, {"evidence", it.evidence}};
    if (!it.command.empty()) ij["command"] = it.command;
    j["items"].push_back(ij);
  }
  j["notes"] = r.notes;
}

}  // namespace gs
