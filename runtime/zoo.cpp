#include "runtime/zoo.h"
#include "runtime/toml_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "image/suggest.h"

namespace gs::zoo {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<CatalogEntry> catalog(const PresetLibrary& lib, const std::string& folder) {
  std::vector<CatalogEntry> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(lib.dir()) / folder, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".toml") continue;
    CatalogEntry e;
    e.id = folder + "/" + entry.path().stem().string();
    try {
      Preset p = lib.load(e.id);
      e.name = p.name, e.description = p.description, e.source = p.source;
    } catch (const std::exception& err) {
      e.error = err.what();
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const CatalogEntry& a, const CatalogEntry& b) { return a.id < b.id; });
  return out;
}

std::string workload_preset(const PresetLibrary& lib, const std::string& name) {
  if (name.find('/') != std::string::npos || (name.size() > 5 && name.ends_with(".toml"))) return name;
  std::string id = name;
  std::replace(id.begin(), id.end(), '-', '_');
  std::vector<std::string> known;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(lib.dir()) / "workload", ec))
    if (entry.path().extension() == ".toml") known.push_back(entry.path().stem().string());
  if (std::find(known.begin(), known.end(), id) == known.end()) {
    std::string hint = did_you_mean(id, known);
    throw PresetError("unknown workload '" + name + "'" + (hint.empty() ? "" : "; " + hint) +
                      " (gpu-stack workloads lists them)");
  }
  return "workload/" + id;
}

namespace {

// 1-based line and column of a byte offset, for parse errors.
std::string position(const std::string& text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, col = 1;
    else ++col;
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// A dotted key ("ffn_config.ffn_hidden_size") in the config, or in its text_config.
const json* lookup(const json& config, const std::string& key) {
  for (const json* root : {&config, config.contains("text_config") ? &config["text_config"] : nullptr}) {
    if (!root || !root->is_object()) continue;
    const json* node = root;
    std::stringstream parts(key);
    std::string part;
    while (node && std::getline(parts, part, '.')) node = node->is_object() && node->contains(part) ? &(*node)[part] : nullptr;
    if (node) return node;
  }
  return nullptr;
}


std::string number_text(double x) {
  std::ostringstream s;
  if (x == std::floor(x) && std::abs(x) < 1e15) s << static_cast<long long>(x);
  else s << x;
  return s.str();
}

struct Line {
  std::string key, value, comment;
};

std::string render(const std::vector<Line>& lines) {
  std::string out;
  for (const auto& l : lines) {
    std::string s = "\"" + l.key + "\" = " + l.value;
    if (s.size() < 61) s.resize(61, ' ');
    else s += ' ';
    out += s + "# " + l.comment + "\n";
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

}  // namespace

ImportResult import_hf_config(const std::string& json_text, const std::string& json_path, const std::string& map_path,
                              const std::string& preset_name) {
  json config;
  try {
    config = json::parse(json_text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (auto p = what.find(": "); p != std::string::npos) what = what.substr(p + 2);
    throw PresetError(json_path + ":" + position(json_text, e.byte ? e.byte - 1 : 0) + ": not valid JSON: " + what +
                      "; hint: a Hugging Face config.json is one JSON object");
  }
  if (!config.is_object()) throw PresetError(json_path + ":1:1: expected a JSON object (a Hugging Face config.json)");

  const toml::table map = read_toml_file(map_path);
  // The model variables the rules below read or set come from the map's [roles] table, not from C++.
  auto role = [&](const char* name) {
    auto v = map["roles"][name].value<std::string>();
    if (!v) throw PresetError(map_path + ": [roles] has no '" + std::string(name) + "' (the variable the importer's rule for it sets)");
    return *v;
  };

  ImportResult r;
  for (const auto& key : toml_strings(map.get("experts_keys")))
    if (const json* v = lookup(config, key); v && v->is_number() && v->get<double>() > 0) r.moe = true;
  const std::string mla_key = map["mla_key"].value_or(std::string());
  if (const json* v = mla_key.empty() ? nullptr : lookup(config, mla_key); v && v->is_number()) r.mla = true;

  std::map<std::string, double> values;
  std::vector<Line> assign;
  auto put = [&](const std::string& var, double x, const std::string& why) {
    values[var] = x;
    assign.push_back({var, number_text(x), why});
  };

  const toml::array* fields = map["field"].as_array();
  if (!fields) throw PresetError(map_path + ": the mapping has no [[field]] entries");
  for (const auto& node : *fields) {
    const toml::table* f = node.as_table();
    if (!f) continue;
    const std::string var = (*f)["variable"].value_or(std::string());
    if ((*f)["moe"].value_or(false) && !r.moe) continue;
    if ((*f)["mla"].value_or(false) && !r.mla) continue;
    bool found = false;
    for (const auto& key : toml_strings(f->get("keys"))) {
      const json* v = lookup(config, key);
      if (!v) continue;
      if (v->is_null() && (*f)["null_is_zero"].value_or(false)) {
        put(var, 0, "config.json: " + key + " = null (no latent)");
      } else if (v->is_boolean()) {
        bool b = v->get<bool>();
        if ((*f)["negate"].value_or(false)) b = !b;
        put(var, b ? 1 : 0, "config.json: " + key + " = " + (v->get<bool>() ? "true" : "false"));
      } else if (v->is_number()) {
        put(var, v->get<double>(), "config.json: " + key + " = " + number_text(v->get<double>()));
      } else {
        continue;
      }
      found = true;
      break;
    }
    if (!found && !(*f)["optional"].value_or(false)) r.not_found.push_back(var);
  }
  const std::string n_layers = role("n_layers"), d_model = role("d_model"), n_heads = role("n_heads");
  for (const std::string& core : {n_layers, d_model, n_heads})
    if (!values.count(core))
      throw PresetError(json_path + ": no " + std::string(core) + " in the configuration (looked for the keys " + map_path +
                        " lists); is this a transformer config.json?");

  // Family facts the configuration leaves out, then the stated assumptions.
  const std::string type_key = map["model_type_key"].value_or(std::string("model_type"));
  std::string model_type;
  if (const json* t = lookup(config, type_key); t && t->is_string()) model_type = t->get<std::string>();
  if (const json* t = config.contains("text_config") ? lookup(config["text_config"], type_key) : nullptr; t && t->is_string())
    model_type = t->get<std::string>();
  if (const toml::table* fam = map["model_type"][model_type].as_table())
    for (const auto& [k, v] : *fam)
      if (auto x = v.value<double>(); x && !values.count(std::string(k.str()))) put(std::string(k.str()), *x, model_type + " family fact (" + map_path + ")");
  if (const toml::table* assumed = map["assumed"].as_table())
    for (const auto& [k, v] : *assumed)
      if (auto x = v.value<double>(); x && !values.count(std::string(k.str())))
        put(std::string(k.str()), *x, "assumption of the import map (" + map_path + "); edit for a model that differs");
  const std::string shared_experts = role("shared_expert_count");
  if (r.moe && !values.count(shared_experts)) put(shared_experts, 0, "no shared-expert key in config.json");
  std::erase(r.not_found, shared_experts);

  if (r.moe) {
    const double layers = values[n_layers];
    double dense = 0, stride = 1;
    if (const json* v = lookup(config, map["dense_prefix_key"].value_or(std::string()))) dense = v->is_number() ? v->get<double>() : 0;
    if (const json* v = lookup(config, map["moe_stride_key"].value_or(std::string()))) stride = v->is_number() && v->get<double>() > 0 ? v->get<double>() : 1;
    const double moe_layers = std::floor((layers - dense) / stride);
    put(role("n_moe_layers"), moe_layers, "derived: (layers - leading dense layers " + number_text(dense) + ") / MoE stride " + number_text(stride));
    put(role("capacity_factor"), 1, "dropless routing: the capacity constraint's floor");
  } else {
    put(role("n_moe_layers"), 0, "dense model: no mixture of experts");
    put(role("active_experts"), 1, "dense model: placeholder for the expert-parallel message size, which no layer uses");
  }
  if (r.mla) {
    const double h = values[n_heads];
    const std::string kv_heads = role("n_kv_heads"), head_dim = role("head_dim");
    values[kv_heads] = h;
    std::erase_if(assign, [&](const Line& l) { return l.key == kv_heads || l.key == head_dim; });
    put(kv_heads, h, "MLA: training expands the latent to per-head keys and values");
    put(head_dim, (values[role("mla_d_head_nope")] + values[role("mla_d_rope")] + values[role("mla_d_head_v")]) / 2,
        "MLA: attention-core equivalent width, (query-key width + value width) / 2");
  }

  const std::string attention = r.mla ? "mla" : "gqa";
  std::vector<Line> variants;
  if (const toml::array* selectors = map["attention_selector"].as_array())
    for (const auto& node : *selectors)
      if (const toml::table* s = node.as_table())
        variants.push_back({(*s)["variable"].value_or(std::string()), quoted(attention), (*s)["comment"].value_or(std::string())});
  variants.push_back({role("padding_factor"), quoted("dropless"), r.moe ? "dropless routing (assumed)" : "dense model: no capacity padding"});

  std::ostringstream out;
  out << "# Imported by `gpu-stack workload import` from " << fs::path(json_path).filename().string() << " with the key map "
      << map_path << ".\n\n";
  out << "name = " << quoted(preset_name) << "\n";
  out << "description = "
      << quoted(std::string(r.moe ? "MoE" : "Dense") + " model imported from " + fs::path(json_path).filename().string() + ": " +
                number_text(values[n_layers]) + " layers, d_model " + number_text(values[d_model]) + ", " +
                number_text(values[n_heads]) + " heads" +
                (r.moe ? ", " + number_text(values[role("n_experts")]) + " experts top-" + number_text(values[role("active_experts")]) : ""))
      << "\n";
  out << "source = " << quoted(json_path + " (model configuration); key map " + map_path) << "\n";
  out << "extends = [" << quoted(r.moe ? "moe_variant_selector" : "dense_variant_selector") << "]\n";
  out << "notes = [\n  " << quoted("Values marked 'assumption' are not in the configuration; check them against the model card.");
  if (!r.not_found.empty()) {
    std::string missing;
    for (const auto& v : r.not_found) missing += (missing.empty() ? "" : ", ") + v;
    out << ",\n  " << quoted("Not in the configuration, left to the scenario: " + missing + ".");
  }
  out << ",\n  " << quoted("Not in any configuration: arch.seq_len (the pre-training sequence length), training.total_tokens and the vector-FLOP counts (arch.vector.*); a scenario assigns them.")
      << ",\n]\n\n[variants]\n"
      << render(variants) << "\n[assign]\n" << render(assign);
  r.toml = out.str();
  return r;
}

}  // namespace gs::zoo
