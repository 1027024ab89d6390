#include "runtime/research/protocol.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::research {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

const char* op_name(Comparison c) {
  switch (c) {
    case Comparison::lt: return "lt";
    case Comparison::le: return "le";
    case Comparison::gt: return "gt";
    case Comparison::ge: return "ge";
    case Comparison::between: return "between";
  }
  return "?";
}

Comparison parse_op(const std::string& s) {
  for (auto c : {Comparison::lt, Comparison::le, Comparison::gt, Comparison::ge, Comparison::between})
    if (s == op_name(c)) return c;
  fail("unknown comparison operator '" + s + "'");
}

std::vector<std::string> strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) fail(std::string("'") + key + "' must be a list");
  for (const auto& s : j[key]) out.push_back(s.get<std::string>());
  return out;
}

std::string text(const Json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) fail(std::string("protocol field '") + key + "' must be a string");
  return j[key].get<std::string>();
}

}  // namespace

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::designed: return "designed";
    case Stage::virtual_: return "virtual";
    case Stage::shadow: return "shadow";
    case Stage::controlled: return "controlled";
    case Stage::validated: return "validated";
  }
  return "?";
}

Stage parse_stage(const std::string& s) {
  for (auto st : {Stage::designed, Stage::virtual_, Stage::shadow, Stage::controlled, Stage::validated})
    if (s == stage_name(st)) return st;
  fail("unknown experiment stage '" + s + "'");
}

bool FalsifierSpec::survives(double v) const {
  if (!std::isfinite(v)) return false;
  switch (op) {
    case Comparison::lt: return v < threshold;
    case Comparison::le: return v <= threshold;
    case Comparison::gt: return v > threshold;
    case Comparison::ge: return v >= threshold;
    case Comparison::between: return v >= threshold && v <= *upper_threshold;
  }
  return false;
}

std::string FalsifierSpec::rule_text() const {
  std::string s = fmt::format("{} {}", op_name(op), format_double(threshold));
  if (upper_threshold) s += " .. " + format_double(*upper_threshold);
  return s;
}

const MetricSpec* ExperimentProtocol::metric(const std::string& name) const {
  for (const auto& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

void ExperimentProtocol::validate() const {
  for (const auto* s : {&experiment_id, &title, &question, &hypothesis, &seed_policy, &source_window, &schema_version})
    if (blank(*s)) fail("protocol " + experiment_id + ": text fields must not be blank");
  if (baselines.empty() || metrics.empty() || falsifiers.empty() || independent_variables.empty() ||
      held_out_dimensions.empty() || real_validation_requirements.empty())
    fail("protocol " + experiment_id + ": baselines, metrics, falsifiers, independent variables, held-out dimensions "
         "and real-validation requirements must all be non-empty");
  std::set<std::string> names;
  bool any_primary = false;
  for (const auto& m : metrics) {
    if (blank(m.name) || blank(m.unit) || blank(m.description)) fail("protocol " + experiment_id + ": metric fields must not be blank");
    if (!names.insert(m.name).second) fail("protocol " + experiment_id + ": metric '" + m.name + "' declared twice");
    any_primary |= m.primary;
  }
  if (!any_primary) fail("protocol " + experiment_id + ": at least one metric must be primary");
  std::set<std::string> ids, covered;
  for (const auto& f : falsifiers) {
    if (!metric(f.metric)) fail("falsifier " + f.falsifier_id + " tests undeclared metric '" + f.metric + "'");
    if (!ids.insert(f.falsifier_id).second) fail("falsifier id '" + f.falsifier_id + "' used twice");
    if (!std::isfinite(f.threshold) || (f.upper_threshold && !std::isfinite(*f.upper_threshold)))
      fail("falsifier " + f.falsifier_id + ": thresholds must be finite");
    if ((f.op == Comparison::between) != f.upper_threshold.has_value())
      fail("falsifier " + f.falsifier_id + ": an upper threshold goes with 'between' and only with it");
    if (f.upper_threshold && *f.upper_threshold < f.threshold) fail("falsifier " + f.falsifier_id + ": upper < lower");
    if (blank(f.description)) fail("falsifier " + f.falsifier_id + " needs a description");
    covered.insert(f.metric);
  }
  std::set<std::string> req_ids;
  for (const auto& r : evidence_requirements) {
    if (blank(r.requirement_id) || blank(r.kind) || blank(r.description) || blank(r.acceptance_rule) || blank(r.evidence_boundary))
      fail("protocol " + experiment_id + ": requirement fields must not be blank");
    if (!req_ids.insert(r.requirement_id).second) fail("requirement id '" + r.requirement_id + "' used twice");
    if (ids.count(r.requirement_id)) fail("id '" + r.requirement_id + "' names both a falsifier and a requirement");
    for (const auto& m : r.required_metrics) {
      if (!metric(m)) fail("requirement " + r.requirement_id + " needs undeclared metric '" + m + "'");
      if (r.mandatory) covered.insert(m);
    }
  }
  for (const auto& m : metrics)
    if (m.primary && !covered.count(m.name))
      fail("protocol " + experiment_id + ": primary metric '" + m.name + "' is tested by no falsifier and no mandatory requirement");
}

Json ExperimentProtocol::to_json() const {
  Json ms = Json::array(), fs = Json::array(), rs = Json::array();
  for (const auto& m : metrics)
    ms.push_back({{"name", m.name}, {"unit", m.unit}, {"description", m.description}, {"primary", m.primary}});
  for (const auto& f : falsifiers)
    fs.push_back({{"falsifier_id", f.falsifier_id}, {"metric", f.metric}, {"operator", op_name(f.op)},
                  {"threshold", f.threshold}, {"upper_threshold", f.upper_threshold ? Json(*f.upper_threshold) : Json(nullptr)},
                  {"description", f.description}});
  for (const auto& r : evidence_requirements)
    rs.push_back({{"requirement_id", r.requirement_id}, {"kind", r.kind}, {"description", r.description},
                  {"earliest_resolvable_stage", stage_name(r.earliest_resolvable_stage)},
                  {"acceptance_rule", r.acceptance_rule}, {"evidence_boundary", r.evidence_boundary},
                  {"required_metrics", r.required_metrics}, {"required_panels", r.required_panels},
                  {"comparison_baselines", r.comparison_baselines}, {"mandatory", r.mandatory}});
  return {{"schema_version", schema_version}, {"experiment_id", experiment_id}, {"title", title},
          {"question", question}, {"hypothesis", hypothesis}, {"baselines", baselines}, {"metrics", ms},
          {"falsifiers", fs}, {"independent_variables", independent_variables},
          {"held_out_dimensions", held_out_dimensions}, {"real_validation_requirements", real_validation_requirements},
          {"seed_policy", seed_policy}, {"source_window", source_window}, {"evidence_requirements", rs}, {"notes", notes}};
}

std::string ExperimentProtocol::hash() const { return canonical_sha256(to_json()); }

ExperimentProtocol ExperimentProtocol::from_json(const Json& j) {
  ExperimentProtocol p;
  p.schema_version = text(j, "schema_version");
  p.experiment_id = text(j, "experiment_id");
  p.title = text(j, "title");
  p.question = text(j, "question");
  p.hypothesis = text(j, "hypothesis");
  p.baselines = strings(j, "baselines");
  for (const auto& m : j.at("metrics"))
    p.metrics.push_back({text(m, "name"), text(m, "unit"), text(m, "description"), m.value("primary", false)});
  for (const auto& f : j.at("falsifiers")) {
    FalsifierSpec s{text(f, "falsifier_id"), text(f, "metric"), parse_op(text(f, "operator")), f.at("threshold").get<double>(), {}, text(f, "description")};
    if (f.contains("upper_threshold") && !f["upper_threshold"].is_null()) s.upper_threshold = f["upper_threshold"].get<double>();
    p.falsifiers.push_back(s);
  }
  p.independent_variables = strings(j, "independent_variables");
  p.held_out_dimensions = strings(j, "held_out_dimensions");
  p.real_validation_requirements = strings(j, "real_validation_requirements");
  p.seed_policy = text(j, "seed_policy");
  p.source_window = text(j, "source_window");
  for (const auto& r : j.value("evidence_requirements", Json::array())) {
    EvidenceRequirementSpec e;
    e.requirement_id = text(r, "requirement_id");
    e.kind = text(r, "kind");
    e.description = text(r, "description");
    e.earliest_resolvable_stage = parse_stage(text(r, "earliest_resolvable_stage"));
    e.acceptance_rule = text(r, "acceptance_rule");
    e.evidence_boundary = text(r, "evidence_boundary");
    e.required_metrics = strings(r, "required_metrics");
    e.required_panels = strings(r, "required_panels");
    e.comparison_baselines = strings(r, "comparison_baselines");
    e.mandatory = r.value("mandatory", true);
    p.evidence_requirements.push_back(e);
  }
  p.notes = strings(j, "notes");
  p.validate();
  return p;
}

std::vector<std::string> list_protocols(const std::string& dir) {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "protocol.json"))
      ids.push_back(entry.path().filename().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

ExperimentProtocol load_frozen_protocol(const std::string& dir, const std::string& experiment_id) {
  std::string upper = experiment_id;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto folder = std::filesystem::path(dir) / upper;
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  if (!std::filesystem::exists(folder / "protocol.json"))
    throw std::runtime_error("no protocol for experiment '" + experiment_id + "' under " + dir);
  ExperimentProtocol p;
  try {
    p = ExperimentProtocol::from_json(Json::parse(read(folder / "protocol.json")));
  } catch (const std::exception& e) {
    throw std::runtime_error((folder / "protocol.json").string() + ": " + e.what());
  }
  if (p.experiment_id != upper) throw std::runtime_error((folder / "protocol.json").string() + " declares experiment " + p.experiment_id);
  std::string pinned = read(folder / "protocol.sha256");
  pinned = pinned.substr(0, pinned.find_first_of(" \t\r\n"));
  if (pinned != p.hash())
    throw std::runtime_error(fmt::format("protocol {} was edited after it was frozen: pinned {}, content hashes to {}",
                                         upper, pinned, p.hash()));
  return p;
}

}  // namespace gs::research
