#include "runtime/site/site.h"

#include "image/eval.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "image/atomic_file.h"
#include "image/expr.h"
#include "runtime/analysis/influence.h"
#include "runtime/analysis/root_debt.h"
#include "runtime/analysis/scenario.h"
#include "runtime/format.h"
#include "runtime/graph.h"
#include "runtime/presets.h"
#include "runtime/research/protocol.h"
#include "runtime/research/store.h"
#include "runtime/resolver.h"
#include "runtime/sim/commands.h"
#include "runtime/site/charts.h"
#include "runtime/site/simulation.h"
#include "runtime/sim/experiments.h"
#include "runtime/symbolic.h"
#include "runtime/toml_file.h"
#include "runtime/uq/commands.h"
#include "runtime/validate/mapping_table.h"
#include "runtime/validate/runs.h"
#include "runtime/validate/validate.h"

namespace gs::site {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// The Ask view's questions (in menu order), the run cost the breakdown splits and the calculator inputs
// listed first are what the model exports under the roles question, breakdown and input
// (model/29_exports.gstack), so this file names no model variable.
std::optional<uint32_t> first_export(const Registry& reg, const char* role) {
  const auto e = reg.exports(role);
  return e.empty() ? std::nullopt : std::optional<uint32_t>(e.front().var);
}

std::optional<double> finite(const GiNaC::ex& e) {
  auto d = sym::to_double(e);
  if (!d || !std::isfinite(*d)) return std::nullopt;
  return d;
}

json number_or_null(std::optional<double> d) { return d && std::isfinite(*d) ? json(*d) : json(nullptr); }

// Postfix program for the page's stack machine: numbers stay numbers, a variable is ["v", id], a local
// binder ["l", slot], a call ["f", name, argc], a piecewise ["p", argc], an operator its token.
json program_of(const Expr& e) {
  json out = json::array();
  for (const Node& n : e.nodes) {
    switch (n.op) {
      case Op::Num: out.push_back(n.value); break;
      case Op::Var: out.push_back(json::array({"v", n.index})); break;
      case Op::Local: out.push_back(json::array({"l", n.index})); break;
      case Op::Call: out.push_back(json::array({"f", func_info(static_cast<Func>(n.index)).name, n.count})); break;
      case Op::Piecewise: out.push_back(json::array({"p", n.count})); break;
      default: out.push_back(op_token(n.op)); break;
    }
  }
  return out;
}

std::string relation_text(const Registry& reg, const Relation& r) {
  const auto& names = reg.var_names();
  if (r.role == Role::Constraint)
    return render(r.lhs, names) + " " + op_token(r.compare) + " " + render(r.rhs, names);
  std::string lhs = r.lhs_var >= 0 ? names[size_t(r.lhs_var)] : std::string("?");
  if (r.kind == Kind::Iterative)
    return lhs + " = iterate(start " + render(r.initial, names) + ", " + render(r.iterations, names) +
           " times: x -> " + render(r.rhs, names) + ")";
  if (r.kind == Kind::Differential) return "d" + lhs + "/d(...) = " + render(r.rhs, names);
  if (r.kind == Kind::Stochastic) return lhs + " ~ " + r.distribution + " (mean " + render(r.rhs, names) + ")";
  return lhs + " = " + render(r.rhs, names);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + p.string() + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool readable(const std::string& p) {
  std::ifstream in(p);
  return bool(in);
}

// ---- the model: variables, relations, systems, references

json model_json(const Registry& reg, const std::string& image_path) {
  const Image& img = reg.image();
  json systems = json::array();
  for (const auto& s : img.systems) systems.push_back({{"name", s.name}, {"description", s.description}});
  json refs = json::array();
  for (const auto& r : img.refs)
    refs.push_back({{"name", r.name}, {"citation", r.citation}, {"kind", r.kind}, {"url", r.url}, {"year", r.year}});
  json vars = json::array();
  for (uint32_t id = 0; id < reg.var_count(); ++id) {
    const Variable& v = reg.var(id);
    json j = {{"name", v.name},
              {"unit", v.unit},
              {"scale", v.unit_scale},
              {"desc", v.description},
              {"sys", v.system},
              {"kind", var_kind_name(reg.kind(id))},
              {"refs", v.refs},
              {"loc", reg.location(v.span)},
              {"defs", reg.definitions(id)}};
    if (v.is_constant) j["value"] = v.value;
    if (!v.symbol.empty()) j["sym"] = v.symbol;
    // Units people quote (presets/display_units.toml): the page shows a value in the largest rung it
    // reaches, and the SI form (`si`, the base unit) on hover.
    j["si"] = reg.units().describe(v.dim);
    if (auto ladder = quoted_ladder(reg.units(), v); !ladder.empty()) {
      json rungs = json::array();
      for (const auto& r : ladder) rungs.push_back(json::array({r.unit, r.scale}));
      j["ladder"] = rungs;
    }
    vars.push_back(std::move(j));
  }
  json rels = json::array();
  for (uint32_t id = 0; id < reg.relation_count(); ++id) {
    const Relation& r = reg.relation(id);
    auto deps = reg.relation_deps(id);
    json j = {{"name", r.name},
              {"role", role_name(r.role)},
              {"kind", kind_name(r.kind)},
              {"key", r.variant_key},
              {"def", r.lhs_var},
              {"text", relation_text(reg, r)},
              {"deps", std::vector<uint32_t>(deps.begin(), deps.end())},
              {"desc", r.description},
              {"refs", r.refs},
              {"loc", reg.location(r.span)}};
    if (r.role == Role::Approximation) j["validity"] = render(r.validity, reg.var_names());
    rels.push_back(std::move(j));
  }
  json questions = json::array();
  for (const auto& q : reg.exports(kExportQuestion)) questions.push_back({{"key", q.label}, {"label", q.description}, {"var", q.var}});
  RegistryStats st = reg.stats();
  return {{"schema", "gpu-stack.site.model.v1"},
          {"image", fs::path(image_path).filename().string()},
          {"stats",
           {{"systems", st.systems}, {"variables", st.variables}, {"constants", st.constants}, {"relations", st.relations},
            {"root_inputs", st.root_inputs}}},
          {"questions", questions},
          {"systems", systems},
          {"refs", refs},
          {"variables", vars},
          {"relations", rels}};
}

// ---- one scenario: values, selections, calculator program, breakdown, intervals, influence

struct ScenarioData {
  json j;
  double max_program_error = 0;
};

json scenario_json(const Registry& reg, const PresetLibrary& lib, const std::string& presets_dir, const std::string& name,
                   const Graph& graph, size_t samples, std::vector<std::string>& notes) {
  Preset preset = lib.load(name);
  std::vector<uint32_t> targets;
  for (const auto& q : reg.exports(kExportQuestion)) targets.push_back(q.var);
  if (auto v = first_export(reg, kExportBreakdown)) targets.push_back(*v);

  // One fresh resolver per target; the steps of later targets that an earlier one already computed are
  // skipped, so the merged list stays in dependency order.
  std::map<uint32_t, double> values;
  std::map<uint32_t, uint32_t> selected;
  std::set<uint32_t> missing, assigned_used;
  std::vector<std::pair<uint32_t, uint32_t>> steps;  // var, relation
  std::set<uint32_t> emitted;
  json tjs = json::array();
  for (uint32_t t : targets) {
    Resolver resolver(reg, preset.assignments, preset.variants);
    Resolution res = resolver.resolve(t);
    for (const auto& [v, e] : res.values)
      if (auto d = finite(e)) values[v] = *d;
    for (const auto& s : res.steps) {
      selected[s.var] = s.relation;
      if (emitted.insert(s.var).second) steps.emplace_back(s.var, s.relation);
    }
    for (const auto& m : res.missing) missing.insert(m.var);
    for (uint32_t a : res.assigned) assigned_used.insert(a);
    json tj = {{"var", t}, {"value", number_or_null(res.number)}, {"missing", json::array()}};
    for (const auto& m : res.missing) tj["missing"].push_back(m.var);
    if (!res.number) tj["formula"] = sym::to_string(res.value).substr(0, 2000);
    tj["violations"] = res.violations();
    if (res.number && res.missing.empty() && !preset.uncertain.empty()) {
      try {
        ScenarioPoint sp{preset.assignments, preset.variants, preset.uncertain};
        if (auto iv = interval_of(reg, sp, t, samples, 1))
          tj["interval"] = {{"p5", iv->p5}, {"median", iv->p50}, {"p95", iv->p95}, {"samples", iv->samples}, {"seed", 1}};
      } catch (const std::exception& e) {
        tj["interval_error"] = e.what();
      }
    }
    tjs.push_back(std::move(tj));
  }

  // The calculator program: inputs are the assignments and constants the steps read.
  std::set<uint32_t> read;
  for (const auto& [v, r] : steps)
    for (uint32_t d : relation_value_deps(reg.relation(r))) read.insert(d);
  std::set<uint32_t> computed(emitted.begin(), emitted.end());
  json inputs = json::array();
  std::vector<uint32_t> input_ids;
  for (uint32_t d : read) {
    if (computed.count(d)) continue;
    input_ids.push_back(d);
  }
  // Main inputs first, then the other assignments by name, then constants.
  const auto main_inputs = reg.exports(kExportInput);
  auto rank = [&](uint32_t v) {
    for (size_t i = 0; i < main_inputs.size(); ++i)
      if (main_inputs[i].var == v) return int(i);
    return reg.var(v).is_constant ? 2000 : 1000;
  };
  std::stable_sort(input_ids.begin(), input_ids.end(), [&](uint32_t a, uint32_t b) {
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb;
    return reg.var(a).name < reg.var(b).name;
  });
  for (uint32_t d : input_ids) {
    auto it = values.find(d);
    std::optional<double> base;
    if (reg.var(d).is_constant) base = reg.var(d).value;
    else if (auto a = preset.assignments.find(d); a != preset.assignments.end()) base = a->second;
    else if (it != values.end()) base = it->second;
    inputs.push_back({{"var", d}, {"base", number_or_null(base)}, {"main", rank(d) < 1000},
                      {"constant", reg.var(d).is_constant}});
  }
  json psteps = json::array();
  for (const auto& [v, r] : steps) {
    const Relation& rel = reg.relation(r);
    json s = {{"var", v}, {"rel", r}, {"rhs", program_of(rel.rhs)}};
    if (rel.kind == Kind::Iterative) {
      s["init"] = program_of(rel.initial);
      s["iter"] = program_of(rel.iterations);
    }
    psteps.push_back(std::move(s));
  }

  // Check the program against the resolver with the same stack machine the page runs.
  std::vector<double> vals(reg.var_count(), std::numeric_limits<double>::quiet_NaN());
  for (const auto& in : inputs)
    if (!in["base"].is_null()) vals[in["var"].get<uint32_t>()] = in["base"].get<double>();
  for (const auto& [v, r] : steps) {
    const Relation& rel = reg.relation(r);
    if (rel.kind == Kind::Iterative) {
      double n = eval_postfix(rel.iterations, vals), x = eval_postfix(rel.initial, vals);
      for (int i = 0; i < int(n); ++i) x = eval_postfix(rel.rhs, vals, x);
      vals[v] = x;
    } else {
      vals[v] = eval_postfix(rel.rhs, vals);
    }
  }
  double max_err = 0;
  for (const auto& [v, x] : values) {
    if (!computed.count(v)) continue;
    double y = vals[v];
    // With missing inputs the resolver may still get a number symbolically (0 * x); the program reads
    // NaN there, as the page shows "unresolved". Only finite program values are compared.
    if (!std::isfinite(y) && !missing.empty()) continue;
    double err = std::isfinite(y) ? relative_difference(x, y) : 1;
    max_err = std::max(max_err, err);
  }
  if (max_err > 1e-9)
    notes.push_back("preset " + name + ": the calculator program differs from the resolver by " + std::to_string(max_err) +
                    " (relative); the page flags it");

  // Breakdown of the run's total cost into the direct terms of its selected relation. Each part is a
  // term's value; the parts are added in order and the sum is compared with the total.
  json breakdown = nullptr;
  if (auto total = first_export(reg, kExportBreakdown)) {
    json parts = json::array();
    double sum = 0;
    bool ok = values.count(*total) > 0;
    if (auto s = selected.find(*total); s != selected.end() && ok) {
      const Relation& rel = reg.relation(s->second);
      // Terms of a flat sum of variables: walk the postfix program; anything else is one part.
      std::vector<std::pair<int, uint32_t>> terms;  // sign, var
      bool flat = true;
      std::vector<std::vector<std::pair<int, uint32_t>>> st;
      for (const Node& n : rel.rhs.nodes) {
        if (n.op == Op::Var) st.push_back({{1, n.index}});
        else if ((n.op == Op::Add || n.op == Op::Sub) && st.size() >= 2) {
          auto b = st.back();
          st.pop_back();
          for (auto& [sg, v] : b) st.back().push_back({n.op == Op::Sub ? -sg : sg, v});
        } else {
          flat = false;
          break;
        }
      }
      if (flat && st.size() == 1) terms = st[0];
      for (const auto& [sg, v] : terms) {
        auto it = values.find(v);
        if (it == values.end()) {
          ok = false;
          break;
        }
        double x = sg * it->second;
        sum += x;
        parts.push_back({{"var", v}, {"sign", sg}, {"value", x}});
      }
      if (terms.empty()) ok = false;
    } else {
      ok = false;
    }
    if (ok)
      breakdown = {{"total_var", *total}, {"total", values[*total]}, {"parts", parts}, {"sum", sum},
                   {"relative_difference", relative_difference(sum, values[*total])}};
    else
      breakdown = {{"total_var", *total}, {"total", number_or_null(values.count(*total) ? std::optional(values[*total]) : std::nullopt)},
                   {"parts", json::array()},
                   {"note", "the total is assigned by the preset or not computable, so it has no parts"}};
  }

  // Influence of the inputs on cost per token (elasticities), for the root-debt view.
  json influence_rows = json::array();
  if (auto cpt = first_export(reg, kExportQuestion)) {
    try {
      InfluenceResult inf = influence(reg, preset.assignments, preset.variants, *cpt, graph, preset.uncertain);
      size_t n = 0;
      for (const auto& r : inf.inputs) {
        if (n++ >= 40) break;
        influence_rows.push_back({{"var", r.var}, {"status", r.status}, {"value", number_or_null(r.value)},
                                  {"elasticity", number_or_null(r.elasticity)},
                                  {"variance_share", number_or_null(r.variance_share)}, {"dependents", r.dependents}});
      }
    } catch (const std::exception& e) {
      notes.push_back("preset " + name + ": influence not computed: " + e.what());
    }
  }

  json vjs = json::object();
  for (const auto& [v, x] : values) vjs[std::to_string(v)] = x;
  json sel = json::object();
  for (const auto& [v, r] : selected) sel[std::to_string(v)] = r;
  json assigns = json::object();
  for (const auto& [v, x] : preset.assignments) assigns[std::to_string(v)] = x;
  json variants = json::object();
  for (const auto& [v, k] : preset.variants) variants[std::to_string(v)] = k;
  json uncertain = json::array();
  for (const auto& [v, d] : preset.uncertain) uncertain.push_back(v);
  (void)presets_dir;
  return {{"name", preset.name},
          {"description", preset.description},
          {"source", preset.source},
          {"layers", preset.layers},
          {"notes", preset.notes},
          {"targets", tjs},
          {"values", vjs},
          {"selected", sel},
          {"assigned", assigns},
          {"variants", variants},
          {"uncertain", uncertain},
          {"missing", std::vector<uint32_t>(missing.begin(), missing.end())},
          {"breakdown", breakdown},
          {"calculator", {{"inputs", inputs}, {"steps", psteps}, {"max_relative_error_vs_resolver", max_err}}},
          {"influence", {{"target", first_export(reg, kExportQuestion) ? json(*first_export(reg, kExportQuestion)) : json(nullptr)},
                         {"rows", influence_rows}}}};
}

// ---- root debt: blast radius of every registry root, and families

json root_debt_json(const Registry& reg, const Graph& graph) {
  auto rows = root_debt_rows(reg, graph);
  auto fams = root_families(reg, rows);
  json r = json::array();
  for (const auto& row : rows) r.push_back({{"var", row.var}, {"dependents", row.dependents}, {"family", row.family}});
  json f = json::array();
  for (const auto& fam : fams) {
    json members = json::array();
    for (const auto& m : fam.members) members.push_back(m.var);
    f.push_back({{"family", fam.family}, {"weight", fam.total_weight}, {"roots", fam.members.size()}, {"members", members}});
  }
  return {{"schema", "gpu-stack.site.root-debt.v1"}, {"roots", r}, {"families", f}};
}

// ---- validation against published runs

// The tables the Validation view predicts: --runs, else the workspace's runs table ($GSTACK_RUNS), else the
// tables `gpu-stack validate` reads by default (the mapping table's default_runs under the data folder), so
// the view and its chart show every run validate does.
std::vector<std::string> site_runs_paths(const SiteOptions& opt, const std::string& presets_dir) {
  if (!opt.runs_csv.empty()) return {opt.runs_csv};
  if (!opt.default_runs_csv.empty()) return {opt.default_runs_csv};
  return validate::default_runs_paths(presets_dir, opt.data_dir);
}

json validation_json(const Registry& reg, const PresetLibrary& lib, const std::vector<std::string>& paths, std::vector<std::string>& notes) {
  std::string why = paths.empty() ? "no table of published runs was given (--runs FILE.csv)" : "";
  for (const auto& p : paths)
    if (why.empty() && !readable(p)) why = "the table of published runs '" + p + "' cannot be read";
  if (!why.empty()) {
    notes.push_back("validation view empty: " + why);
    return {{"schema", "gpu-stack.site.validation.v1"}, {"available", false}, {"reason", why}};
  }
  try {
    std::string joined, names;
    for (const auto& p : paths) {
      joined += (joined.empty() ? "" : " + ") + p;
      names += (names.empty() ? "" : " + ") + fs::path(p).filename().string();
    }
    auto rows = validate::read_runs(paths);
    auto report = validate::run_validation(reg, lib, rows, joined);
    json full = report;
    for (auto& row : full["rows"]) row.erase("breakdown_si");
    full["runs"] = names;
    return {{"schema", "gpu-stack.site.validation.v1"}, {"available", true}, {"report", full}};
  } catch (const std::exception& e) {
    notes.push_back(std::string("validation view empty: ") + e.what());
    return {{"schema", "gpu-stack.site.validation.v1"}, {"available", false}, {"reason", e.what()}};
  }
}

// ---- experiments: frozen protocols and the run artifacts found or run

// A field as text: strings as they are, anything else as its JSON, absent as "".
std::string text_of(const research::Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

json protocol_view(const research::Json& p) {
  json j = {{"experiment_id", text_of(p, "experiment_id")}, {"title", text_of(p, "title")},
            {"question", text_of(p, "question")}, {"hypothesis", text_of(p, "hypothesis")}};
  j["baselines"] = p.value("baselines", research::Json::array());
  json fs_ = json::array();
  for (const auto& f : p.value("falsifiers", research::Json::array())) {
    json x = {{"falsifier_id", text_of(f, "falsifier_id")}, {"metric", text_of(f, "metric")},
              {"op", text_of(f, "operator")},
              {"description", text_of(f, "description")}};
    // A one-sided rule has no upper threshold (null in the protocol): leave it out rather than print "null".
    for (const char* key : {"threshold", "upper_threshold"})
      if (f.contains(key) && !f[key].is_null()) x[key] = f[key];
    fs_.push_back(std::move(x));
  }
  j["falsifiers"] = fs_;
  json reqs = json::array();
  for (const auto& r : p.value("evidence_requirements", research::Json::array()))
    reqs.push_back({{"requirement_id", text_of(r, "requirement_id")}, {"kind", text_of(r, "kind")},
                    {"mandatory", r.value("mandatory", false)},
                    {"earliest_resolvable_stage", text_of(r, "earliest_resolvable_stage")},
                    {"acceptance_rule", text_of(r, "acceptance_rule")}});
  j["evidence_requirements"] = reqs;
  return j;
}

json artifact_view(const research::Json& a, const std::string& origin) {
  json j = {{"origin", origin},
            {"schema", text_of(a, "schema")},
            {"experiment_id", text_of(a, "experiment_id")},
            {"artifact_sha256", text_of(a, "artifact_sha256")},
            {"seal_valid", research::seal_is_valid(a)},
            {"protocol_hash", text_of(a, "protocol_hash")},
            {"scenario_id", text_of(a, "scenario_id")},
            {"verdict", (text_of(a, "verdict").empty() ? std::string("inconclusive") : text_of(a, "verdict"))},
            {"conclusion", text_of(a, "conclusion")},
            {"hypothesis_policy", text_of(a, "hypothesis_policy")}};
  if (a.contains("seed")) j["seed"] = a["seed"];
  // One run artifact (experiment-run.v1), or a result holding one per policy (experiment-result.v1).
  std::vector<research::Json> runs;
  if (a.contains("artifacts") && a["artifacts"].is_array())
    for (const auto& r : a["artifacts"]) runs.push_back(r);
  else if (a.contains("falsifiers"))
    runs.push_back(a);
  json pol = json::array();
  for (const auto& r : runs) {
    json falsifiers = json::array();
    for (const auto& f : r.value("falsifiers", research::Json::array()))
      falsifiers.push_back({{"falsifier_id", text_of(f, "falsifier_id")}, {"metric", text_of(f, "metric")},
                            {"observed_value", f.contains("observed_value") ? json(f["observed_value"]) : json(nullptr)},
                            {"survived", f.contains("survived") ? json(f["survived"]) : json(nullptr)},
                            {"reason", text_of(f, "reason")}});
    json reqs = json::array();
    for (const auto& q : r.value("evidence_requirements", research::Json::array()))
      reqs.push_back({{"requirement_id", text_of(q, "requirement_id")}, {"status", text_of(q, "status")},
                      {"reason", text_of(q, "reason")}});
    pol.push_back({{"policy", text_of(r, "policy")}, {"run_id", text_of(r, "run_id")}, {"stage", text_of(r, "stage")},
                   {"verdict", text_of(r, "verdict")}, {"conclusion", text_of(r, "conclusion")},
                   {"falsifiers", falsifiers}, {"evidence_requirements", reqs}});
  }
  j["runs"] = pol;
  return j;
}

void scan_artifacts(const fs::path& root, std::vector<std::pair<std::string, research::Json>>& found) {
  std::error_code ec;
  if (!fs::exists(root, ec)) return;
  std::vector<fs::path> files;
  if (fs::is_regular_file(root, ec)) files.push_back(root);
  else
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string name = f.filename().string();
    if (name == "protocol.json" || name.rfind("scenario", 0) == 0) continue;
    if (fs::file_size(f, ec) > (64u << 20)) continue;
    try {
      auto j = research::Json::parse(read_text(f));
      if (j.is_object() && j.contains("artifact_sha256") && j.contains("verdict")) found.emplace_back(f.string(), std::move(j));
    } catch (...) {
    }
  }
}

json experiments_json(const SiteOptions& opt, const std::string& presets_dir, std::vector<std::string>& notes) {
  const std::string& dir = opt.experiments_dir;
  json exps = json::array();
  std::error_code ec;
  std::vector<fs::path> ids;
  if (fs::is_directory(dir, ec))
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_directory() && fs::exists(e.path() / "protocol.json")) ids.push_back(e.path());
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<std::string, research::Json>> extra;
  for (const auto& a : opt.artifacts) scan_artifacts(a, extra);
  for (const auto& p : ids) {
    std::string id = p.filename().string();
    json e = {{"id", id}};
    research::Json proto;
    try {
      research::ExperimentProtocol frozen = research::load_frozen_protocol(dir, id);
      proto = frozen.to_json();
      e["protocol_hash"] = frozen.hash();
      e["frozen"] = true;
      e["protocol"] = protocol_view(proto);
      std::vector<std::pair<std::string, research::Json>> found;
      scan_artifacts(p, found);
      for (const auto& [path, j] : extra)
        if (text_of(j, "experiment_id") == id) found.emplace_back(path, j);
      json arts = json::array();
      for (const auto& [path, j] : found) {
        json v = artifact_view(j, fs::path(path).filename().string());
        v["protocol_matches"] = text_of(j, "protocol_hash") == frozen.hash();
        arts.push_back(std::move(v));
      }
      if (opt.run_experiments) {
        std::vector<fs::path> scenarios;
        for (const auto& f : fs::directory_iterator(p, ec))
          if (f.path().filename().string().rfind("scenario", 0) == 0 && f.path().extension() == ".json") scenarios.push_back(f.path());
        std::sort(scenarios.begin(), scenarios.end());
        for (const auto& s : scenarios) {
          try {
            auto scenario = research::Json::parse(read_text(s));
            sim::ExperimentContext ctx;  // E001-RECOVERY-V2 reads the world file its scenario names
            ctx.scenario_path = s.string();
            ctx.image_path = opt.image_path;
            ctx.presets_dir = presets_dir;  // a world's model_preset (E001-RECOVERY-V2's reconfiguration, its cap)
            sim::ExperimentOutcome out = sim::run_experiment(frozen, scenario, std::nullopt, ctx);
            json v = artifact_view(out.sealed, "run by the exporter on " + s.filename().string());
            v["protocol_matches"] = true;
            arts.push_back(std::move(v));
          } catch (const std::exception& x) {
            e["run_error"] = std::string(x.what()).substr(0, 300);
          }
        }
      }
      e["artifacts"] = arts;
      // The headline verdict comes from the last artifact that counts: a valid seal and the frozen
      // protocol. Others stay listed (marked) but never decide it.
      e["verdict"] = "not run";
      for (const auto& a : arts)
        if (a["seal_valid"] == true && a["protocol_matches"] == true) e["verdict"] = a["verdict"];
    } catch (const std::exception& x) {
      e["frozen"] = false;
      e["error"] = x.what();
      e["artifacts"] = json::array();
      e["verdict"] = "not run";
    }
    exps.push_back(std::move(e));
  }
  if (exps.empty()) notes.push_back("experiments view empty: no protocols under " + dir);
  return {{"schema", "gpu-stack.site.experiments.v1"}, {"experiments", exps}};
}

// Both forms of every data file: NAME.json for servers and agents, NAME.js (a classic script that
// assigns window.GSTACK_DATA.KEY) so the pages also work from file://.
void write_data(const fs::path& out, const std::string& name, const std::string& key, const json& j, SiteSummary& sum) {
  std::string text = j.dump();
  // "</script>" cannot appear inside the script form; escape every '<' (still valid JSON and JS).
  std::string safe;
  safe.reserve(text.size());
  for (char c : text) {
    if (c == '<') safe += "\\u003c";
    else safe += c;
  }
  std::string js = "window.GSTACK_DATA = window.GSTACK_DATA || {};\nwindow.GSTACK_DATA[\"" + key + "\"] = " + safe + ";\n";
  for (const auto& [file, bytes] : {std::pair{name + ".json", text + "\n"}, std::pair{name + ".js", js}}) {
    write_file_atomic((out / "data" / file).string(), bytes);
    sum.files.push_back("data/" + file);
    sum.bytes += bytes.size();
  }
}

}  // namespace

double eval_postfix(const Expr& e, const std::vector<double>& values, double local) { return eval_reference(e, values, local); }

namespace {

// A file every exported site holds, so a later export knows the folder is a site it may replace whole.
constexpr const char* kSiteMarker = ".gpu-stack-site";

// Chart.js: the front end's choice (--chartjs, else $GSTACK_CHARTJS, else the Debian package's file found
// at build time; tools/frontend/workspace_env.h).
fs::path chartjs_path(const SiteOptions& opt) { return opt.chartjs_path; }

// Copies the charting library (and its licence, where the package has one) into the site's vendor/.
void copy_chartjs(const SiteOptions& opt, const fs::path& out, SiteSummary& sum) {
  const fs::path src = chartjs_path(opt);
  fs::create_directories(out / "vendor");
  std::vector<std::pair<fs::path, std::string>> files = {{src, "vendor/chart.min.js"}};
  const fs::path licence = "/usr/share/doc/libjs-chart.js/copyright";
  std::error_code ec;
  if (fs::is_regular_file(licence, ec)) files.emplace_back(licence, "vendor/chart.js.LICENSE.txt");
  for (const auto& [from, rel] : files) {
    std::string bytes = read_text(from);
    write_file_atomic((out / rel).string(), bytes);
    sum.files.push_back(rel);
    sum.bytes += bytes.size();
  }
}

// A TOML document as JSON: tables as objects (in the table's key order), arrays, and each value as its
// JSON kind; dates and times as their TOML text.
json json_of_toml(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    json j = json::object();
    for (const auto& [k, v] : *t) j[std::string(k.str())] = json_of_toml(v);
    return j;
  }
  if (const auto* a = n.as_array()) {
    json j = json::array();
    for (const auto& v : *a) j.push_back(json_of_toml(v));
    return j;
  }
  if (auto v = n.value_exact<std::string>()) return *v;
  if (auto v = n.value_exact<int64_t>()) return *v;
  if (auto v = n.value_exact<double>()) return *v;
  if (auto v = n.value_exact<bool>()) return *v;
  std::ostringstream text;  // a date, a time or a date-time
  n.visit([&](const auto& x) { text << x; });
  return text.str();
}

// The Story view's words and the names it shows (presets/site/story.toml) as JSON. Every variable it
// names is checked against the image, so a renamed variable fails the export, not the page. With a
// preset library, each named variable is also resolved under every exported preset: `values` and
// `relations` (the selected relation, or -1 when assigned or unresolved) keyed by preset name.
json story_json(const Registry& reg, const std::string& presets_dir, const PresetLibrary* lib = nullptr,
                const std::vector<std::string>& presets = {}) {
  const std::string path = (fs::path(presets_dir) / "site" / "story.toml").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return json{{"schema", "gpu-stack.site-story.v1"}, {"missing", path}};
  const toml::table doc = read_toml_file(path);
  json j = json_of_toml(doc);
  std::vector<uint32_t> vars;
  auto known = [&](const json& name) {
    if (!name.is_string()) throw std::runtime_error(path + ": a story variable must be a name in quotes");
    try {
      vars.push_back(lookup_variable(reg, name.get<std::string>(), "story variable"));
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
  };
  for (const auto& station : j.value("journey", json::array())) known(station.value("var", json()));
  for (const auto& q : j.value("question", json::array()))
    for (const auto& name : q.value("values", json::array())) known(name);
  if (!lib) return j;
  json values = json::object(), relations = json::object();
  for (const auto& name : presets) {
    const Preset preset = lib->load(name);
    Resolver resolver(reg, preset.assignments, preset.variants);
    json pv = json::object(), pr = json::object();
    for (uint32_t v : vars) {
      const Resolution res = resolver.resolve(v);
      pv[std::to_string(v)] = number_or_null(res.number);
      const Step* step = res.step_for(v);
      pr[std::to_string(v)] = step ? int64_t(step->relation) : int64_t(-1);
    }
    values[preset.name] = std::move(pv);
    relations[preset.name] = std::move(pr);
  }
  j["values"] = std::move(values);
  j["relations"] = std::move(relations);
  return j;
}

// Every argument is checked before any work, so a bad one never leaves a half or mixed site behind.
void check_site_options(const Registry& reg, const SiteOptions& opt, const fs::path& out, const fs::path& assets,
                        const std::string& presets_dir) {
  if (!fs::exists(assets / "index.html"))
    throw std::runtime_error("the site's assets are missing: no index.html under '" + assets.string() + "'");
  std::error_code ec;
  if (fs::is_symlink(out, ec)) throw std::runtime_error("--out '" + out.string() + "' is a symbolic link; give the folder itself");
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) throw std::runtime_error("--out '" + out.string() + "' exists and is not a folder");
    // Sites exported before the marker existed are recognised by their own files.
    const bool is_site = fs::exists(out / kSiteMarker, ec) || (fs::exists(out / "index.html", ec) && fs::exists(out / "data" / "model.js", ec));
    if (!fs::is_empty(out, ec) && !is_site)
      throw std::runtime_error("--out '" + out.string() + "' is a folder that does not hold a site written by gpu-stack (no " + kSiteMarker +
                               "); the export replaces its folder whole, so give a new or empty folder");
  }
  const fs::path chartjs = chartjs_path(opt);
  if (!fs::is_regular_file(chartjs, ec))
    throw std::runtime_error("the charting library is missing: no Chart.js at '" + chartjs.string() +
                             "'; hint: install Debian's libjs-chart.js (tools/setup-deps), or set GSTACK_CHARTJS to chart.min.js");
  load_chart_settings(reg, chart_settings_path(presets_dir));  // throws FILE:LINE:COL on a bad settings file
  story_json(reg, presets_dir);  // throws naming the story file and the unknown variable
  if (fs::is_regular_file(simulation_settings_path(presets_dir), ec)) load_simulation_settings(simulation_settings_path(presets_dir));
  PresetLibrary lib(reg, presets_dir);
  for (const auto& p : opt.presets) lib.load(p);  // throws naming the preset and the line
  if (!opt.runs_csv.empty() && !readable(opt.runs_csv)) throw std::runtime_error("cannot read --runs '" + opt.runs_csv + "'");
  for (const auto& a : opt.artifacts)
    if (!fs::exists(a, ec)) throw std::runtime_error("--artifacts '" + a + "' does not exist");
}

// The Simulation view's runs (runtime/site/simulation.h), or an empty view and a note when the presets
// folder has no presets/site/simulation.toml.
json simulation_data(const Registry& reg, const std::string& presets_dir, std::vector<std::string>& notes) {
  const std::string path = simulation_settings_path(presets_dir);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    notes.push_back("simulation: no " + path + ", so the Simulation view is empty");
    return {{"schema", "gpu-stack.site.simulation.v1"}, {"runs", json::array()}};
  }
  return simulation_view_json(reg, presets_dir, load_simulation_settings(path));
}

void build_site(const Registry& reg, const SiteOptions& opt, const fs::path& out, const fs::path& assets, const std::string& presets_dir,
                SiteSummary& sum) {
  fs::create_directories(out / "data");
  write_file_atomic((out / kSiteMarker).string(), std::string_view("written by gpu-stack export site; the next export replaces this folder whole\n"));
  // Static assets: every file under site/.
  for (auto it = fs::recursive_directory_iterator(assets); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_regular_file()) continue;
    fs::path rel = fs::relative(it->path(), assets);
    fs::create_directories((out / rel).parent_path());
    std::string bytes = read_text(it->path());
    write_file_atomic((out / rel).string(), bytes);
    sum.files.push_back(rel.generic_string());
    sum.bytes += bytes.size();
  }

  PresetLibrary lib(reg, presets_dir);
  std::vector<std::string> presets = opt.presets;
  if (presets.empty()) presets.push_back(default_preset_name(presets_dir));
  Graph graph(reg);

  write_data(out, "model", "model", model_json(reg, opt.image_path), sum);
  json scen = json::array();
  for (const auto& p : presets) scen.push_back(scenario_json(reg, lib, presets_dir, p, graph, opt.interval_samples, sum.notes));
  write_data(out, "scenarios", "scenarios", {{"schema", "gpu-stack.site.scenarios.v1"}, {"scenarios", scen}}, sum);
  write_data(out, "rootdebt", "rootdebt", root_debt_json(reg, graph), sum);
  write_data(out, "validation", "validation", validation_json(reg, lib, site_runs_paths(opt, presets_dir), sum.notes), sum);
  write_data(out, "experiments", "experiments", experiments_json(opt, presets_dir, sum.notes), sum);
  copy_chartjs(opt, out, sum);
  const ChartSettings charts = load_chart_settings(reg, chart_settings_path(presets_dir));
  write_data(out, "charts", "charts", charts_json(reg, lib, presets_dir, presets, charts, sum.notes), sum);
  write_data(out, "story", "story", story_json(reg, presets_dir, &lib, presets), sum);
  write_data(out, "simulation", "simulation", simulation_data(reg, presets_dir, sum.notes), sum);
}

}  // namespace

SiteSummary export_site(const Registry& reg, const SiteOptions& opt) {
  if (opt.out_dir.empty()) throw std::runtime_error("export site needs --out DIR");
  // "site/" and "site" name the same folder; the sibling temporary needs the name without the slash.
  std::string out_text = opt.out_dir;
  while (out_text.size() > 1 && out_text.back() == '/') out_text.pop_back();
  const fs::path out(out_text);
  const fs::path assets(opt.assets_dir);
  const std::string& presets_dir = opt.presets_dir;
  if (presets_dir.empty()) throw std::runtime_error("export site needs a presets directory");
  check_site_options(reg, opt, out, assets, presets_dir);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());

  // Built beside the target and swapped in whole: a failure part-way leaves the old site as it was.
  const std::string built = make_sibling_temp_dir(out.string());
  SiteSummary sum;
  try {
    build_site(reg, opt, built, assets, presets_dir, sum);
    replace_dir_atomic(built, out.string());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(built, ec);
    throw;
  }
  return sum;
}

}  // namespace gs::site
