#include "runtime/estimate/estimate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "image/suggest.h"
#include "runtime/format.h"
#include "runtime/preset_overlay.h"
#include "runtime/resolver.h"
#include "runtime/validate/mapping.h"
#include "runtime/validate/runs.h"
#include "runtime/toml_file.h"

namespace gs::estimate {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

struct Accelerator {
  std::string name, preset;
  std::vector<std::string> aliases, runs;
};

struct OutputSpec {
  std::string label, var;
  bool interval = true;
};

// presets/estimate/accelerators.toml: the only place that names the model variables the estimate uses.
struct EstimateData {
  std::string path, base;
  std::string params, tokens, gpus, mfu, price, tariff, pue;
  std::vector<OutputSpec> outputs;
  std::vector<Accelerator> accelerators;
};

std::string data_path(const std::string& presets_dir) { return (fs::path(presets_dir) / "estimate" / "accelerators.toml").string(); }

std::string required_string(const toml::table& t, const std::string& key, const std::string& where) {
  auto v = t[key].value<std::string>();
  if (!v || v->empty()) throw PresetError(where + ": missing the string '" + key + "'");
  return *v;
}

std::vector<std::string> string_list(const toml::table& t, const std::string& key) {
  std::vector<std::string> out;
  if (const auto* a = t[key].as_array())
    for (const auto& x : *a)
      if (auto s = x.value<std::string>()) out.push_back(*s);
  return out;
}

EstimateData load_data(const std::string& presets_dir) {
  EstimateData d;
  d.path = data_path(presets_dir);
  const toml::table doc = read_toml_file(d.path);
  d.base = required_string(doc, "base", d.path);
  const toml::table* in = doc["inputs"].as_table();
  if (!in) throw PresetError(d.path + ": missing the [inputs] table");
  d.params = required_string(*in, "params", d.path + " [inputs]");
  d.tokens = required_string(*in, "tokens", d.path + " [inputs]");
  d.gpus = required_string(*in, "gpus", d.path + " [inputs]");
  d.mfu = required_string(*in, "mfu", d.path + " [inputs]");
  d.price = required_string(*in, "price_per_gpu_hour", d.path + " [inputs]");
  d.tariff = required_string(*in, "tariff", d.path + " [inputs]");
  d.pue = required_string(*in, "pue", d.path + " [inputs]");
  if (const auto* outs = doc["outputs"].as_array())
    for (const auto& o : *outs)
      if (const auto* t = o.as_table())
        d.outputs.push_back({required_string(*t, "label", d.path + " [[outputs]]"), required_string(*t, "var", d.path + " [[outputs]]"),
                             (*t)["interval"].value_or(true)});
  if (const auto* accs = doc["accelerator"].as_array())
    for (const auto& a : *accs)
      if (const auto* t = a.as_table())
        d.accelerators.push_back({required_string(*t, "name", d.path + " [[accelerator]]"), required_string(*t, "preset", d.path + " [[accelerator]]"),
                                  string_list(*t, "aliases"), string_list(*t, "runs")});
  if (d.outputs.empty() || d.accelerators.empty()) throw PresetError(d.path + ": needs [[outputs]] and [[accelerator]] entries");
  return d;
}

const Accelerator& find_accelerator(const EstimateData& d, const std::string& name) {
  const std::string key = validate::lower(name);
  std::vector<std::string> names;
  for (const auto& a : d.accelerators) {
    if (validate::lower(a.name) == key) return a;
    for (const auto& alias : a.aliases)
      if (validate::lower(alias) == key) return a;
    names.push_back(a.name);
  }
  std::string hint = did_you_mean(key, names);
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  throw PresetError("unknown accelerator '" + name + "' (known: " + all + ")" + (hint.empty() ? "" : "\n  hint: " + hint));
}

// "0.4" or "0.35..0.45", each end read by parse_quantity in the variable's display unit (or with a unit).
InputOrigin value_or_range(const Registry& reg, uint32_t var, const std::string& text, const std::string& option) {
  InputOrigin o;
  o.origin = option;
  if (auto dots = text.find(".."); dots != std::string::npos) {
    double lo = parse_quantity(reg, var, text.substr(0, dots)), hi = parse_quantity(reg, var, text.substr(dots + 2));
    if (!(lo <= hi)) throw PresetError(option + " " + text + ": the low end of a range must not exceed the high end");
    o.low = lo, o.high = hi, o.value = (lo + hi) / 2;
  } else {
    o.value = parse_quantity(reg, var, text);
  }
  return o;
}

void check_range(const InputOrigin& o, const std::string& option, double lo, bool lo_open, double hi, const std::string& what) {
  for (double x : {o.value, o.low.value_or(o.value), o.high.value_or(o.value)})
    if (!std::isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi) throw PresetError(option + ": " + what);
}

// The accelerator family's MFU from the published runs: the median of the rows whose hardware maps to one
// of the family's validate presets, with their spread as the range.
InputOrigin mfu_from_runs(const PresetLibrary& lib, const Accelerator& acc, const std::string& runs_path) {
  if (acc.runs.empty())
    throw PresetError("no published runs describe '" + acc.name + "', so there is no MFU to assume; pass --mfu VALUE or --mfu LO..HI");
  std::vector<std::pair<double, std::string>> found;
  for (const auto& row : validate::read_runs(runs_path)) {
    auto pct = validate::parse_plain_number(row.get("mfu_pct"));
    auto preset = validate::hardware_preset_for(lib, row.get("hardware"));
    if (!pct || !preset || *pct <= 0 || *pct > 100) continue;
    if (std::find(acc.runs.begin(), acc.runs.end(), *preset) != acc.runs.end()) found.emplace_back(*pct / 100, row.id());
  }
  if (found.empty())
    throw PresetError("no row of " + runs_path + " reports an MFU on '" + acc.name + "'; pass --mfu VALUE or --mfu LO..HI");
  std::sort(found.begin(), found.end());
  InputOrigin o;
  const size_t n = found.size();
  o.value = n % 2 ? found[n / 2].first : (found[n / 2 - 1].first + found[n / 2].first) / 2;
  if (n > 1) o.low = found.front().first, o.high = found.back().first;
  o.origin = fmt::format("median of {} row{} of {} on {}", n, n == 1 ? "" : "s", fs::path(runs_path).filename().string(), acc.name);
  for (const auto& f : found) o.rows.push_back(f.second);
  return o;
}

void put(ScenarioPoint& s, uint32_t var, const InputOrigin& o, bool triangular) {
  s.assignments[var] = o.value;
  s.uncertain.erase(var);
  if (!o.low || *o.low == *o.high) return;
  Distribution d;
  d.kind = triangular ? Distribution::Kind::Triangular : Distribution::Kind::Uniform;
  d.a = *o.low, d.b = *o.high, d.c = o.value;
  s.uncertain[var] = d;
}

double count_input(const std::string& text, const std::string& option, bool integer) {
  auto x = parse_count(text);
  if (!x) throw PresetError(option + " '" + text + "': expected a positive count such as 70B, 15T or 2.5K (K, M, B/G, T = 1e3, 1e6, 1e9, 1e12)");
  if (integer && std::floor(*x) != *x) throw PresetError(option + " '" + text + "': expected a whole number of accelerators");
  if (*x > 1e30) throw PresetError(option + " '" + text + "': too large");
  return *x;
}

}  // namespace

std::optional<double> parse_count(const std::string& text) {
  std::string t = text;
  t.erase(0, t.find_first_not_of(" \t"));
  if (t.empty() || t[0] == '~' || t[0] == '-' || t[0] == '+') return std::nullopt;  // an estimate takes exact counts
  auto x = validate::parse_scaled_count(t);
  if (!x || !std::isfinite(*x) || *x <= 0) return std::nullopt;
  return x;
}

std::vector<std::string> accelerator_names(const std::string& presets_dir) {
  std::vector<std::string> out;
  for (const auto& a : load_data(presets_dir).accelerators) out.push_back(a.name);
  return out;
}

EstimateResult estimate(const Registry& reg, const PresetLibrary& lib, const EstimateRequest& req) {
  const EstimateData data = load_data(req.presets_dir);
  const Accelerator& acc = find_accelerator(data, req.gpu);
  auto var = [&](const std::string& name) { return lookup_variable(reg, name, "variable named in " + data.path); };

  EstimateResult res;
  res.accelerator = acc.name, res.hardware_preset = acc.preset, res.samples = req.samples, res.seed = req.seed;
  res.params = count_input(req.params, "--params", false);
  res.tokens = count_input(req.tokens, "--tokens", false);
  res.gpus = count_input(req.gpus, "--gpus", true);

  // Layers: the base assumptions, then the accelerator; the request's values win over both.
  ScenarioPoint s;
  for (const auto& name : {data.base, acc.preset}) {
    Preset p = lib.load(name);
    overlay_preset(s, p);
    res.layers.insert(res.layers.end(), p.layers.begin(), p.layers.end());
  }
  const uint32_t params = var(data.params), tokens = var(data.tokens), gpus = var(data.gpus);
  s.assignments[params] = res.params * reg.var(params).unit_scale;
  s.assignments[tokens] = res.tokens * reg.var(tokens).unit_scale;
  s.assignments[gpus] = res.gpus * reg.var(gpus).unit_scale;

  const uint32_t mfu = var(data.mfu);
  res.mfu = req.mfu.empty() ? mfu_from_runs(lib, acc, req.runs_path) : value_or_range(reg, mfu, req.mfu, "--mfu");
  check_range(res.mfu, "--mfu", 0, true, 1, "an MFU is a share of the peak, above 0 and at most 1");
  put(s, mfu, res.mfu, req.mfu.empty());
  if (!req.price_per_gpu_hour.empty()) {
    const uint32_t price = var(data.price);
    res.price = value_or_range(reg, price, req.price_per_gpu_hour, "--price-per-gpu-hour");
    check_range(*res.price, "--price-per-gpu-hour", 0, false, INFINITY, "a price must be a finite number of at least 0");
    put(s, price, *res.price, false);
  }
  if (!req.tariff.empty()) {
    const uint32_t tariff = var(data.tariff);
    res.tariff = value_or_range(reg, tariff, req.tariff, "--tariff");
    check_range(*res.tariff, "--tariff", 0, false, INFINITY, "a tariff must be a finite number of at least 0");
    put(s, tariff, *res.tariff, false);
  }
  if (!req.pue.empty()) {
    const uint32_t pue = var(data.pue);
    res.pue = value_or_range(reg, pue, req.pue, "--pue");
    check_range(*res.pue, "--pue", 1, false, 3, "a PUE is facility power over IT power, from 1 to 3");
    put(s, pue, *res.pue, false);
  }

  Resolver resolver(reg, s.assignments, s.variants);
  for (const auto& o : data.outputs) {
    EstimateLine line{o.label, var(o.var), std::nullopt, std::nullopt, {}};
    Resolution r = resolver.resolve(line.var);
    for (const auto& m : r.missing) line.missing.push_back(m.var);
    if (r.number && line.missing.empty()) {
      line.value = *r.number;
      if (o.interval && !s.uncertain.empty()) {
        line.interval = interval_of(reg, s, line.var, req.samples, req.seed);
        if (line.interval && line.interval->p5 == line.interval->p95) line.interval.reset();
      }
    }
    res.lines.push_back(std::move(line));
  }
  return res;
}

namespace {

json origin_json(const InputOrigin& o) {
  json j{{"value", o.value}, {"origin", o.origin}};
  j["low"] = o.low ? json(*o.low) : json(nullptr);
  j["high"] = o.high ? json(*o.high) : json(nullptr);
  if (!o.rows.empty()) j["rows"] = o.rows;
  return j;
}

}  // namespace

namespace {

// A count as it was typed: 7e10 -> "70B", 1.5e13 -> "15T", 2048 -> "2048".
std::string count_text(double x) {
  for (auto [scale, suffix] : {std::pair{1e12, "T"}, {1e9, "B"}, {1e6, "M"}})
    if (x >= scale) return fmt::format("{:.6g}{}", x / scale, suffix);
  return fmt::format("{:.6g}", x);
}

}  // namespace

std::string estimate_text(const Registry& reg, const EstimateResult& res) {
  const auto& units = reg.units();
  std::string out = fmt::format("Quick estimate: {} parameters, {} tokens, {} x {} (preset {})\n", count_text(res.params),
                                count_text(res.tokens), count_text(res.gpus), res.accelerator, res.hardware_preset);
  // The MFU's variable is the one whose line is not printed: show it by its own unit (a share).
  out += fmt::format("  MFU assumed : {:.1f}%", 100 * res.mfu.value);
  if (res.mfu.low) out += fmt::format(" (range {:.1f}% .. {:.1f}%)", 100 * *res.mfu.low, 100 * *res.mfu.high);
  out += "  from " + res.mfu.origin + "\n";
  size_t width = 0;
  for (const auto& l : res.lines) width = std::max(width, l.label.size());
  out += "\n";
  for (const auto& l : res.lines) {
    const Variable& v = reg.var(l.var);
    std::string line = fmt::format("  {:<{}}  ", l.label, width);
    if (!l.value) {
      std::string names;
      for (auto m : l.missing) names += (names.empty() ? "" : ", ") + reg.var(m).name;
      line += "needs " + names;
    } else {
      line += fmt::format("{:<22}", format_quantity(units, v, *l.value));
      if (l.interval)
        line += "90%: " + format_quantity(units, v, l.interval->p5) + " .. " + format_quantity(units, v, l.interval->p95);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  out += "\nassumptions:\n";
  out += "  MFU         : " + res.mfu.origin + (res.mfu.low ? " (interval: triangular over the range, mode at the value)" : "") + "\n";
  if (res.price) out += "  price       : " + res.price->origin + (res.price->low ? " (interval: uniform over the range)" : "") + "\n";
  else out += "  price       : none given; pass --price-per-gpu-hour USD (rental or amortized rate, electricity excluded)\n";
  if (res.tariff) out += "  tariff      : " + res.tariff->origin + (res.tariff->low ? " (interval: uniform over the range)" : "") + "\n";
  else out += "  tariff      : the base preset's (see presets/estimate/base.toml), with its stated range\n";
  if (res.pue) out += "  PUE         : " + res.pue->origin + (res.pue->low ? " (interval: uniform over the range)" : "") + "\n";
  else out += "  PUE         : the base preset's 1.2 (1.10 .. 1.58, see presets/estimate/base.toml)\n";
  std::string layers;
  for (const auto& l : res.layers) layers += (layers.empty() ? "" : " > ") + l;
  out += "  presets     : " + layers + "\n";
  out += fmt::format("  interval    : {} randomized quasi-Monte Carlo samples (Halton, 8 shifts), seed {}\n", res.samples, res.seed);
  return out;
}

std::string estimate_json(const Registry& reg, const EstimateResult& res) {
  json j{{"accelerator", res.accelerator}, {"hardware_preset", res.hardware_preset}, {"layers", res.layers},
         {"params", res.params},           {"tokens", res.tokens},                   {"gpus", res.gpus}};
  j["mfu"] = origin_json(res.mfu);
  j["price_per_gpu_hour"] = res.price ? origin_json(*res.price) : json(nullptr);
  j["tariff"] = res.tariff ? origin_json(*res.tariff) : json(nullptr);
  j["pue"] = res.pue ? origin_json(*res.pue) : json(nullptr);
  j["results"] = json::array();
  for (const auto& l : res.lines) {
    const Variable& v = reg.var(l.var);
    json r{{"label", l.label}, {"variable", v.name}, {"unit", v.unit}};
    r["value"] = l.value ? json(*l.value) : json(nullptr);
    r["value_display"] = l.value ? json(*l.value / v.unit_scale) : json(nullptr);
    if (l.interval)
      r["interval"] = {{"p5", l.interval->p5}, {"median", l.interval->p50}, {"p95", l.interval->p95}, {"samples", l.interval->samples}};
    json missing = json::array();
    for (auto m : l.missing) missing.push_back(reg.var(m).name);
    r["missing"] = missing;
    j["results"].push_back(r);
  }
  j["samples"] = res.samples;
  j["seed"] = res.seed;
  return j.dump(2);
}

}  // namespace gs::estimate
