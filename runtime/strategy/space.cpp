#include "runtime/strategy/space.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "runtime/presets.h"
#include "image/text_file.h"
#include "runtime/toml_file.h"

namespace gs::strategy {
namespace {

class Reader {
 public:
  Reader(const Registry& reg, const std::string& path) : reg_(reg), path_(path) {}

  [[noreturn]] void fail(const toml::node& where, const std::string& message) const {
    const auto& s = where.source();
    throw PresetError(path_ + ":" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.column) + ": " + message);
  }

  const toml::node& need(const toml::table& t, const char* key, const std::string& what) const {
    const toml::node* n = t.get(key);
    if (!n) fail(t, what + " needs '" + key + "'");
    return *n;
  }

  std::string text(const toml::node& n, const std::string& what) const {
    auto s = n.value<std::string>();
    if (!s) fail(n, what + " must be a string");
    return *s;
  }

  std::string text_or(const toml::table& t, const char* key, const std::string& what) const {
    const toml::node* n = t.get(key);
    return n ? text(*n, what + "." + key) : std::string();
  }

  double number(const toml::node& n, const std::string& what) const {
    if (auto v = n.value<double>()) return *v;
    fail(n, what + " must be a number");
  }

  const toml::table& table(const toml::node& n, const std::string& what) const {
    if (!n.is_table()) fail(n, what + " must be a table");
    return *n.as_table();
  }

  const toml::array& array(const toml::node& n, const std::string& what) const {
    if (!n.is_array()) fail(n, what + " must be an array");
    return *n.as_array();
  }

  uint32_t variable(const toml::node& n, const std::string& what) const {
    const std::string name = text(n, what);
    try {
      return lookup_variable(reg_, name, what);
    } catch (const PresetError& e) {
      fail(n, e.what());
    }
  }

  // A product: an array of numbers and names; every name must be known (problem quantity or knob).
  Product product(const toml::node& n, const std::string& what, const std::set<std::string>& known) const {
    Product p;
    for (const auto& item : array(n, what)) {
      if (item.is_string()) {
        std::string name = *item.value<std::string>();
        if (!known.count(name)) fail(item, what + ": unknown name '" + name + "' (not a problem quantity or an earlier knob)");
        p.push_back({1, name});
      } else {
        p.push_back({number(item, what), ""});
      }
    }
    return p;
  }

 private:
  const Registry& reg_;
  std::string path_;
};

Generator generator_of(const Reader& r, const toml::node& n) {
  const std::string g = r.text(n, "knob generator");
  if (g == "powers_of_two") return Generator::PowersOfTwo;
  if (g == "range") return Generator::Range;
  if (g == "divisors") return Generator::Divisors;
  if (g == "list") return Generator::List;
  r.fail(n, "unknown knob generator '" + g + "'; use powers_of_two, range, divisors or list");
}

// A table "selector variable" = "variant key".
std::map<uint32_t, std::string> selectors(const Reader& r, const Registry& reg, const toml::node& n, const std::string& what) {
  std::map<uint32_t, std::string> out;
  for (const auto& [key, node] : r.table(n, what)) {
    try {
      auto [var, k] = parse_selector(reg, std::string(key.str()) + "=" + r.text(node, "variant key"));
      out[var] = k;
    } catch (const PresetError& e) {
      r.fail(node, e.what());
    }
  }
  return out;
}

bool names_any(const Product& p, const std::set<std::string>& names) {
  for (const auto& f : p)
    if (names.count(f.name)) return true;
  return false;
}

}  // namespace

StrategySpace narrow_space(const StrategySpace& space, const std::map<std::string, std::vector<double>>& free) {
  StrategySpace out = space;
  out.knobs.clear();
  std::set<std::string> varying;
  for (const auto& [name, values] : free) {
    bool found = false;
    for (const auto& k : space.knobs) found |= k.name == name;
    if (!found) throw PresetError("'" + name + "' is not a knob of the search space " + space.path);
  }
  std::vector<const Knob*> held;  // knobs the scenario states: problem quantities, if anything reads them
  for (const auto& k : space.knobs) {
    auto it = free.find(k.name);
    if (it == free.end()) {
      held.push_back(&k);
      continue;
    }
    Knob n = k;
    n.generator = Generator::List;
    n.bound.clear();
    n.list = it->second;
    n.labels.clear();
    for (double v : n.list)  // keep the names of the values that have one
      for (size_t i = 0; i < k.labels.size(); ++i)
        if (k.list[i] == v) n.labels.push_back(k.labels[i]);
    if (n.labels.size() != n.list.size()) n.labels.clear();
    varying.insert(n.name);
    out.knobs.push_back(std::move(n));
  }
  for (const auto& d : space.derived)
    if (names_any(d.numerator, varying) || names_any(d.denominator, varying)) varying.insert(d.name);
  out.rules.clear();
  for (const auto& rule : space.rules) {
    bool involved = names_any(rule.a, varying) || names_any(rule.b, varying);
    for (const auto& [name, above] : rule.only_if_above) involved |= varying.count(name) > 0;
    if (involved) out.rules.push_back(rule);
  }
  // A held knob becomes a problem quantity when a derived knob, a kept rule or a free knob's bound reads
  // it. Where the scenario leaves it undetermined it takes its first candidate, the neutral setting (1
  // for degrees and chunks, 0 for recomputation and ZeRO), which is what the model assumes then too.
  std::set<std::string> read;
  auto note = [&](const Product& p) {
    for (const auto& f : p) read.insert(f.name);
  };
  for (const auto& d : out.derived) note(d.numerator), note(d.denominator);
  for (const auto& r : out.rules) {
    note(r.a), note(r.b);
    for (const auto& [name, above] : r.only_if_above) read.insert(name);
  }
  for (const auto& k : out.knobs) note(k.bound);
  for (const Knob* k : held)
    if (read.count(k->name)) out.problem.push_back({k->name, k->var, true, k->generator == Generator::List && !k->list.empty() ? k->list.front() : 1});
  return out;
}

const Objective* StrategySpace::objective(const std::string& name) const {
  for (const auto& o : objectives)
    if (o.name == name) return &o;
  return nullptr;
}

const Limit* StrategySpace::limit(const std::string& name) const {
  for (const auto& l : limits)
    if (l.name == name) return &l;
  return nullptr;
}

std::string default_space_path(const std::string& presets_dir) {
  return (std::filesystem::path(presets_dir) / "strategy" / "knobs.toml").string();
}

std::string serving_space_path(const std::string& presets_dir) {
  return (std::filesystem::path(presets_dir) / "strategy" / "serving-knobs.toml").string();
}

StrategySpace load_strategy_space(const Registry& reg, const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path, "strategy space");
  } catch (const TextFileError& e) {
    throw PresetError(e.what());
  }
  return parse_strategy_space(reg, text, path);
}

StrategySpace parse_strategy_space(const Registry& reg, const std::string& text, const std::string& path) {
  const toml::table doc = parse_toml_text(text, path);
  const Reader r(reg, path);
  StrategySpace s;
  s.path = path;
  std::set<std::string> known;

  for (const auto& [key, node] : r.table(r.need(doc, "problem", "the strategy space"), "[problem]")) {
    const toml::table& t = r.table(node, "problem." + std::string(key.str()));
    ProblemQuantity q;
    q.name = std::string(key.str());
    q.var = r.variable(r.need(t, "var", "problem." + q.name), "problem." + q.name + ".var");
    if (const toml::node* f = t.get("when_missing")) q.has_fallback = true, q.fallback = r.number(*f, "when_missing");
    known.insert(q.name);
    s.problem.push_back(q);
  }

  for (const auto& node : r.array(r.need(doc, "knob", "the strategy space"), "[[knob]]")) {
    const toml::table& t = r.table(node, "knob");
    Knob k;
    k.name = r.text(r.need(t, "name", "a knob"), "knob.name");
    if (known.count(k.name)) r.fail(node, "knob '" + k.name + "' is defined twice");
    k.description = r.text_or(t, "description", "knob");
    k.var = r.variable(r.need(t, "var", "knob " + k.name), "knob " + k.name + " var");
    k.generator = generator_of(r, r.need(t, "generator", "knob " + k.name));
    if (k.generator == Generator::List) {
      for (const auto& v : r.array(r.need(t, "list", "knob " + k.name), "list")) k.list.push_back(r.number(v, "list value"));
      if (const toml::node* l = t.get("labels")) {
        for (const auto& v : r.array(*l, "labels")) k.labels.push_back(r.text(v, "label"));
        if (k.labels.size() != k.list.size()) r.fail(*l, "knob " + k.name + ": labels must match the list one to one");
      }
    } else {
      const char* key = k.generator == Generator::Divisors ? "of" : "max";
      k.bound = r.product(r.need(t, key, "knob " + k.name), std::string("knob ") + k.name + "." + key, known);
    }
    if (const toml::node* v = t.get("variants")) k.variants = selectors(r, reg, *v, "knob " + k.name + ".variants");
    known.insert(k.name);
    s.knobs.push_back(std::move(k));
  }

  if (const toml::node* d = doc.get("derived")) {
    for (const auto& node : r.array(*d, "[[derived]]")) {
      const toml::table& t = r.table(node, "derived");
      DerivedKnob k;
      k.name = r.text(r.need(t, "name", "a derived knob"), "derived.name");
      if (known.count(k.name)) r.fail(node, "derived knob '" + k.name + "' is defined twice");
      k.description = r.text_or(t, "description", "derived");
      k.rule = r.text(r.need(t, "rule", "derived knob " + k.name), "derived.rule");
      k.var = r.variable(r.need(t, "var", "derived knob " + k.name), "derived " + k.name + " var");
      k.numerator = r.product(r.need(t, "numerator", "derived knob " + k.name), "numerator", known);
      k.denominator = r.product(r.need(t, "denominator", "derived knob " + k.name), "denominator", known);
      known.insert(k.name);
      s.derived.push_back(std::move(k));
    }
  }

  if (const toml::node* rules = doc.get("rule")) {
    for (const auto& node : r.array(*rules, "[[rule]]")) {
      const toml::table& t = r.table(node, "rule");
      Rule rule;
      rule.name = r.text(r.need(t, "name", "a rule"), "rule.name");
      rule.description = r.text_or(t, "description", "rule");
      const std::string kind = r.text(r.need(t, "kind", "rule " + rule.name), "rule.kind");
      if (kind == "divides") {
        rule.kind = RuleKind::Divides;
        rule.a = r.product(r.need(t, "divisor", "rule " + rule.name), "divisor", known);
        rule.b = r.product(r.need(t, "dividend", "rule " + rule.name), "dividend", known);
        if (const toml::node* o = t.get("dividend_offsets"))
          for (const auto& v : r.array(*o, "dividend_offsets")) rule.dividend_offsets.push_back(r.number(v, "offset"));
        if (const toml::node* o = t.get("or_reverse")) rule.or_reverse = o->value_or(false);
      } else if (kind == "at_most") {
        rule.kind = RuleKind::AtMost;
        rule.a = r.product(r.need(t, "lhs", "rule " + rule.name), "lhs", known);
        rule.b = r.product(r.need(t, "rhs", "rule " + rule.name), "rhs", known);
      } else {
        r.fail(node, "rule " + rule.name + ": unknown kind '" + kind + "'; use divides or at_most");
      }
      if (rule.dividend_offsets.empty()) rule.dividend_offsets = {0};
      if (const toml::node* c = t.get("only_if_above"))
        for (const auto& [key, v] : r.table(*c, "only_if_above")) {
          if (!known.count(std::string(key.str()))) r.fail(v, "only_if_above: unknown knob '" + std::string(key.str()) + "'");
          rule.only_if_above[std::string(key.str())] = r.number(v, "only_if_above value");
        }
      s.rules.push_back(std::move(rule));
    }
  }

  if (const toml::node* v = doc.get("variants")) s.variants = selectors(r, reg, *v, "[variants]");

  auto constraint = [&](const toml::node& n) {
    const std::string name = r.text(n, "constraint name");
    auto id = reg.find_relation(name);
    if (!id || reg.relation(*id).lhs_var >= 0) r.fail(n, "'" + name + "' is not a constraint of the model");
    return *id;
  };
  if (const toml::node* c = doc.get("constraints"))
    for (const auto& n : r.array(r.need(r.table(*c, "[constraints]"), "names", "[constraints]"), "constraints.names"))
      s.constraints.push_back(constraint(n));

  if (const toml::node* l = doc.get("limit"))
    for (const auto& [key, node] : r.table(*l, "[limit]")) {
      const toml::table& t = r.table(node, "limit");
      Limit limit;
      limit.name = std::string(key.str());
      limit.var = r.variable(r.need(t, "var", "limit " + limit.name), "limit " + limit.name + " var");
      limit.constraint = constraint(r.need(t, "constraint", "limit " + limit.name));
      s.limits.push_back(limit);
    }

  for (const auto& [key, node] : r.table(r.need(doc, "objective", "the strategy space"), "[objective]")) {
    const toml::table& t = r.table(node, "objective");
    Objective o;
    o.name = std::string(key.str());
    o.var = r.variable(r.need(t, "var", "objective " + o.name), "objective var");
    const std::string sense = r.text(r.need(t, "sense", "objective " + o.name), "objective sense");
    if (sense != "max" && sense != "min") r.fail(node, "objective " + o.name + ": sense must be max or min");
    o.maximize = sense == "max";
    s.objectives.push_back(o);
  }
  if (const toml::node* d = doc.get("default_objective")) {
    s.default_objective = r.text(*d, "default_objective");
    if (!s.objective(s.default_objective)) r.fail(*d, "default_objective '" + s.default_objective + "' is not an [objective.*] table");
  }

  if (const toml::node* rep = doc.get("report"))
    for (const auto& node : r.array(*rep, "[[report]]")) {
      const toml::table& t = r.table(node, "report");
      ReportColumn c;
      c.name = r.text(r.need(t, "name", "a report column"), "report.name");
      c.var = r.variable(r.need(t, "var", "report column " + c.name), "report var");
      c.group = r.text_or(t, "group", "report");
      s.report.push_back(c);
    }
  return s;
}

}  // namespace gs::strategy
