#include "runtime/validate/mapping.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "runtime/format.h"
#include "runtime/resolver.h"
#include "runtime/uq/plan.h"
#include "runtime/validate/mapping_table.h"

namespace gs::validate {
namespace {

// "" when the preset loads; "missing" when there is no such file; otherwise the load error.
std::string preset_problem(const PresetLibrary& lib, const std::string& name) {
  try {
    lib.load_shared(name);
    return "";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    if (what.find("unknown preset '" + name + "'") != std::string::npos || what.find("cannot read preset file '" + name + "'") != std::string::npos)
      return "missing";
    return what;
  }
}

std::string fmt(double v) { return format_number(v); }

// --- the row's numbers ---------------------------------------------------------------------------------

// A cell that must be a number when present. `bad` collects cells that are present but unreadable.
// `readings` lists how cells that are not plain numbers were read ("16M", "n/a", a range), once each.
struct Cells {
  const RunRow& row;
  std::vector<std::string> bad;
  std::vector<std::string> readings;
  std::optional<double> num(const std::string& col) {
    if (!row.has(col)) return std::nullopt;
    CellNumber c = read_cell_number(row.get(col));
    if (!c.ok) bad.push_back(col + " = '" + row.get(col) + "'");
    const std::string r = col + ": " + c.reading;
    if (!c.reading.empty() && std::find(readings.begin(), readings.end(), r) == readings.end()) readings.push_back(r);
    return c.value;
  }
};

bool whole(double v) { return std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, std::fabs(v)); }

std::optional<int> source_year(const RunRow& row) {
  for (const char* col : {"source", "source_location", "read_via", "notes"})
    if (auto y = parse_year(row.get(col))) return y;
  return std::nullopt;
}

enum class Precision { FP32, FP16, BF16, FP8, MXFP8, NVFP4 };
const char* precision_key(Precision p) {
  switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::FP8: return "fp8";
    case Precision::MXFP8: return "mxfp8";
    case Precision::NVFP4: return "nvfp4";
  }
  return "bf16";
}

// A board power limit the hardware cell states ("power-limited to 750 W", "default 500 W power limit",
// "TDP 700W"): the number directly before a "W" in a cell that speaks of power or TDP.
std::optional<double> stated_power_limit(const std::string& hardware) {
  const std::string h = lower(hardware);
  if (h.find("power") == std::string::npos && h.find("tdp") == std::string::npos) return std::nullopt;
  for (size_t w = h.find('w'); w != std::string::npos; w = h.find('w', w + 1)) {
    if (w + 1 < h.size() && std::isalpha(static_cast<unsigned char>(h[w + 1]))) continue;  // "with", "watts" are not a unit here
    size_t end = w;
    while (end > 0 && h[end - 1] == ' ') --end;
    size_t start = end;
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(h[start - 1])) || h[start - 1] == '.')) --start;
    if (start < end)
      if (auto v = parse_plain_number(h.substr(start, end - start)); v && *v > 0) return v;
  }
  return std::nullopt;
}

// The expert layout a row's `moe` cell states. The keys are the CSV's own convention (data/runs/README.md).
struct MoeShape {
  double experts = 0, top_k = 0, shared = 0, expert_ffn = 0, moe_layers = 0;
  std::optional<double> capacity_factor;  // stated buffers; none for dropless routing
};
std::string trim(const std::string& t) {
  const auto a = t.find_first_not_of(" \t"), b = t.find_last_not_of(" \t");
  return a == std::string::npos ? "" : t.substr(a, b - a + 1);
}

struct MoeParse {
  MoeShape shape;
  std::string missing;  // what the cell lacks or states in a form the model does not cover; empty when complete
};

MoeParse parse_moe_cell(const std::string& cell, double layers) {
  MoeParse out;
  std::map<std::string, std::string> kv;
  std::vector<std::string> flags;
  std::stringstream ss(cell);
  for (std::string part; std::getline(ss, part, ';');) {
    part = trim(part);
    if (auto eq = part.find('='); eq != std::string::npos) kv[lower(trim(part.substr(0, eq)))] = trim(part.substr(eq + 1));
    else if (!part.empty()) flags.push_back(lower(part));
  }
  auto number = [&](const char* key) -> std::optional<double> {
    auto it = kv.find(key);
    if (it == kv.end()) return std::nullopt;
    return parse_plain_number(it->second.substr(0, it->second.find_first_of(" (")));
  };
  std::vector<std::string> lacks;
  auto need = [&](const char* key, double& into) {
    if (auto v = number(key)) into = *v;
    else lacks.push_back(key);
  };
  need("experts", out.shape.experts);
  need("top_k", out.shape.top_k);
  need("shared", out.shape.shared);
  need("expert_ffn", out.shape.expert_ffn);
  const std::string ml = kv.count("moe_layers") ? lower(kv["moe_layers"]) : "";
  if (ml.rfind("all-but-first-", 0) == 0) {
    if (auto n = parse_plain_number(ml.substr(14, ml.find_first_of(" (") == std::string::npos ? std::string::npos : ml.find_first_of(" (") - 14)))
      out.shape.moe_layers = layers - *n;
    else lacks.push_back("moe_layers");
  } else if (ml.rfind("all", 0) == 0) {
    out.shape.moe_layers = layers;
  } else if (auto n = number("moe_layers")) {
    out.shape.moe_layers = *n;
  } else {
    lacks.push_back("moe_layers");
  }
  out.shape.capacity_factor = number("capacity_factor");
  if (!lacks.empty()) {
    std::string list;
    for (const auto& l : lacks) list += (list.empty() ? "" : ", ") + l;
    out.missing = "the moe cell '" + cell + "' does not state " + list + " (expected experts=N;top_k=K;shared=S;expert_ffn=F;moe_layers=all)";
    return out;
  }
  for (const auto& [k, v] : kv) flags.push_back(k);
  for (const auto& f : flags)
    if (f.rfind("mla", 0) == 0)
      out.missing = "multi-head latent attention ('" + f + "') is not among the validate mapping's attention kinds (multi-head, grouped-query)";
  return out;
}

}  // namespace

std::optional<std::string> hardware_preset_for(const PresetLibrary& lib, const std::string& hardware_text) {
  return match_hardware(mapping_table(lib.dir()), hardware_text);
}

RowScenario map_row(const Registry& reg, const PresetLibrary& lib, const RunRow& stated) {
  const MappingTable& M = mapping_table(lib.dir());
  // Cells the row leaves empty that its named model's configuration states.
  RunRow row = stated;
  std::vector<std::string> facts;
  const std::string family = normalise_hardware_name(stated.get("model_family")), model_name = normalise_hardware_name(stated.get("model")),
                    framework = normalise_hardware_name(stated.get("framework")), notes = normalise_hardware_name(stated.get("notes"));
  auto all_in = [](const std::vector<std::string>& want, const std::string& text) {
    return std::all_of(want.begin(), want.end(), [&](const std::string& x) { return text.find(x) != std::string::npos; });
  };
  for (const auto& f : M.model_facts) {
    if (!f.family.empty() && (family.empty() || !all_in(f.family, family))) continue;
    if (!all_in(f.model, model_name) || !all_in(f.framework, framework) || !all_in(f.notes, notes)) continue;
    for (const auto& [col, v] : f.cells) {
      if (row.has(col)) continue;
      std::string value = v, shown = v;
      if (v.front() == '{') {  // the row's own cell of another column ("{pp}")
        const std::string other = v.substr(1, v.size() - 2);
        if (!row.has(other)) continue;
        value = row.get(other);
        shown = value + " (the row's " + other + ")";
      }
      row.cells[col] = value;
      facts.push_back(col + " not given: " + shown + " from " + f.source);
    }
  }
  auto V = [&](const char* role) -> const std::string& { return M.var(role); };
  RowScenario s;
  s.id = row.id();
  s.tier = row.get("tier");
  s.group = row.get("source_group");
  s.line = row.line;
  auto fail = [&](const std::string& why) {
    s.unbuildable = why;
    s.assign.clear();
    s.variants.clear();
    return s;
  };
  if (s.id.empty()) return fail("the row has no id");
  if (!row.field_error.empty()) return fail(row.field_error);
  Cells c{row, {}, {}};
  auto note = [&](const std::string& a) { s.assumptions.push_back(a); };

  // ---- what the row reports -----------------------------------------------------------------------------
  const auto gpus = c.num("gpu_count");
  // Context lengths with a suffix are binary: "8K" is 8192 tokens.
  std::optional<double> seq = parse_plain_number(row.get("seq_len"));
  if (!seq && row.has("seq_len")) {
    seq = parse_binary_count(row.get("seq_len"));
    if (!seq) c.bad.push_back("seq_len = '" + row.get("seq_len") + "'");
  }
  const std::string def = lower(row.get("utilization_definition"));
  const std::string def_compact = normalise_hardware_name(def);
  const auto peak_used = c.num("peak_tflops_per_gpu_used");
  auto add = [&](Observation o) { s.observations.push_back(std::move(o)); };
  if (auto v = c.num("tokens_per_s")) {
    add({"tokens_per_s", "token/s", *v, "tokens_per_s", M.target("tokens_per_s"), 1, ""});
  } else if (auto g = c.num("tokens_per_s_per_gpu"); g && gpus && *gpus > 0) {
    add({"tokens_per_s_per_gpu", "token/s", *g, "tokens_per_s_per_gpu", M.target("tokens_per_s"), 1 / *gpus, ""});
  } else if (auto q = c.num("seqs_per_s"); q && seq && *seq > 0) {
    add({"seqs_per_s", "seq/s", *q, "seqs_per_s", M.target("tokens_per_s"), 1 / *seq, ""});
  }
  // A FLOP rate (per GPU, or the job's aggregate) is compared in the FLOP count the row's definition names.
  auto flop_rate = [&](const char* metric, const char* unit, const char* what, double value, const char* column, double factor) {
    Observation o{metric, unit, value, column, M.target("model_flops_per_gpu"), factor, ""};
    if (def_compact.find("eq3") != std::string::npos || def_compact.find("96*b*s*l*h^2") != std::string::npos) {
      o.target = M.target("megatron_flops_per_gpu");
      o.definition = "Narayanan et al. 2021 eq. 3 (96 B s l h^2 (1 + s/6h + V/16lh) per iteration)";
    } else if (def_compact.find("8n+16") != std::string::npos && def_compact.find("6n+12") == std::string::npos) {
      o.target = M.target("hardware_flops_per_gpu");
      o.definition = "PaLM hardware FLOPs ((6 + 2f) N + (12 + 4f) L d s per token)";
    } else if (def_compact.find("6n+12") != std::string::npos) {
      o.definition = "PaLM model FLOPs (6 N + 12 L d s per token)";
    } else {
      o.definition = "PaLM model FLOPs (6 N + 12 L d s per token), assumed";
      note("utilization definition '" + row.get("utilization_definition").substr(0, 60) + "' not recognised: " + what +
           " compared in PaLM's model-FLOP count");
    }
    add(o);
  };
  if (auto v = c.num("tflops_per_gpu")) flop_rate("tflops_per_gpu", "TFLOP/s", "TFLOP/s per GPU", *v, "tflops_per_gpu", 1e-12);
  // The job's aggregate rate (a source that gives no per-GPU figure) is the per-GPU rate times the GPUs.
  else if (auto a = c.num("aggregate_pflops"); a && gpus && *gpus > 0)
    flop_rate("aggregate_pflops", "PFLOP/s", "the job's aggregate PFLOP/s", *a, "aggregate_pflops", *gpus * 1e-15);
  auto util = [&](const char* col, const char* metric, const std::string& target, const char* conv) {
    auto v = c.num(col);
    if (!v) return;
    Observation o{metric, "%", *v, col, target, 100, conv};
    if (peak_used && *peak_used > 0) {
      o.factor = 100 / (*peak_used * 1e12);
      o.definition += std::string(" over the source's peak of ") + fmt(*peak_used) + " TFLOP/s";
    } else {
      o.target = M.target(metric);
      o.definition += " over the datasheet peak";
    }
    add(o);
  };
  util("mfu_pct", "mfu", M.target("model_flops_per_gpu"), "PaLM model FLOPs (6 N + 12 L d s)");
  util("hfu_pct", "hfu", M.target("hardware_flops_per_gpu"), "PaLM hardware FLOPs ((6 + 2f) N + (12 + 4f) L d s)");
  if (auto v = c.num("step_time_s")) add({"step_time_s", "s", *v, "step_time_s", M.target("step_time_s"), 1, ""});
  // Run-level outcomes need the run's token count.
  std::optional<double> train_tokens;
  if (row.has("training_tokens")) {
    train_tokens = parse_scaled_count(row.get("training_tokens"));
    if (!train_tokens) c.bad.push_back("training_tokens = '" + row.get("training_tokens") + "'");
  }
  std::optional<double> total_tokens = train_tokens;
  if (row.has("wallclock")) {
    if (auto d = parse_duration(row.get("wallclock"))) {
      std::optional<double> tok = d->tokens ? d->tokens : train_tokens;
      if (tok) {
        if (!total_tokens) total_tokens = tok;
        const bool estimate = contains(row.get("wallclock"), "estimate");
        add({"wallclock", "days", d->seconds / 86400, "wallclock", M.target("wallclock"), *tok / *total_tokens / 86400,
             estimate ? "the source's estimate from its own throughput" : ""});
      } else {
        note("wallclock '" + row.get("wallclock") + "' is not compared: no token count for it");
      }
    } else {
      note("wallclock '" + row.get("wallclock") + "' is not a duration the tool reads");
    }
  }
  if (auto v = c.num("gpu_hours")) {
    if (total_tokens) add({"gpu_hours", "GPU*h", *v, "gpu_hours", M.target("gpu_hours"), 1.0 / 3600, ""});
    else note("gpu_hours is not compared: the row gives no training_tokens");
  }
  if (auto v = c.num("energy_mwh")) {
    double pue = 1;
    if (auto p = c.num("pue"); p && *p > 0) pue = *p;
    if (total_tokens)
      add({"energy_mwh", "MWh", *v, "energy_mwh", M.target("energy"), pue / 3.6e9,
           "accelerator energy" + std::string(pue != 1 ? " x PUE " + fmt(pue) : "") +
               (row.has("energy_basis") ? " (source basis: " + row.get("energy_basis").substr(0, 60) + ")" : "")});
    else note("energy_mwh is not compared: the row gives no training_tokens");
  }
  for (size_t i = 0; i < s.observations.size(); ++i) {
    const auto& m = s.observations[i].metric;
    if (m == "tokens_per_s" || m == "tokens_per_s_per_gpu" || m == "seqs_per_s") {
      s.primary = i;
      break;
    }
  }
  if (!s.primary)
    for (const char* want : {"tflops_per_gpu", "aggregate_pflops", "mfu", "hfu"})
      for (size_t i = 0; i < s.observations.size() && !s.primary; ++i)
        if (s.observations[i].metric == want) s.primary = i;
  // A per-GPU or aggregate rate needs the GPU count; without it the row is missing that cell (named below), not a metric.
  const bool rate_needs_gpus = !gpus && (row.has("tokens_per_s_per_gpu") || row.has("aggregate_pflops"));
  if (s.observations.empty() && !rate_needs_gpus)
    return fail("the row reports nothing the model predicts (throughput, utilization, step time, wall clock, GPU-hours or energy)");

  // ---- cells every scenario needs: all that are missing, named at once ------------------------------------
  {
    std::vector<std::string> missing;
    for (const char* col : {"layers", "hidden", "heads", "seq_len", "vocab", "gpu_count"})
      if (!row.has(col)) missing.push_back(col);
    if (!row.has("global_batch_seqs") && !row.has("global_batch_tokens") && !(row.has("micro_batch") && row.has("grad_accum")))
      missing.push_back("global_batch_seqs or global_batch_tokens");
    const std::string z = lower(row.get("zero_fsdp"));
    const bool layout = row.has("tp") || row.has("pp") || row.has("dp") || row.has("cp") || (!z.empty() && z != "no" && z != "none");
    if (!layout && (!gpus || *gpus > 1)) missing.push_back("a parallel layout (tp, pp, dp, cp or zero_fsdp)");
    if (!row.has("hardware")) missing.push_back("hardware");
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      fail("not given: " + list);
      s.missing_columns = missing;
      return s;
    }
  }

  // ---- hardware and precision ---------------------------------------------------------------------------
  const auto year = source_year(row);
  const HardwareRule* hw_rule = match_hardware_rule(M, row.get("hardware"));
  if (!hw_rule) return fail(row.has("hardware") ? "no hardware preset matches '" + row.get("hardware") + "'" : "the row names no hardware");
  const std::optional<std::string> hw = hw_rule->preset;
  if (auto problem = preset_problem(lib, *hw); !problem.empty())
    return fail(problem == "missing" ? "hardware '" + row.get("hardware") + "' maps to preset " + *hw + ", which does not exist yet"
                                     : "hardware preset " + *hw + " does not load: " + problem);
  // "bf16 (no float8)" names a format only to exclude it: drop negated mentions before matching.
  std::string prec_text = lower(row.get("precision"));
  for (const char* neg : {"no float8", "no fp8", "without fp8", "without float8"})
    for (size_t at; (at = prec_text.find(neg)) != std::string::npos;) prec_text.erase(at, std::string(neg).size());
  Precision prec;
  if (prec_text.find("fp4") != std::string::npos) prec = Precision::NVFP4;
  else if (prec_text.find("fp8") != std::string::npos || prec_text.find("float8") != std::string::npos)
    prec = (prec_text.find("mx") != std::string::npos) ? Precision::MXFP8 : Precision::FP8;
  else if (prec_text.find("bf16") != std::string::npos || prec_text.find("bfloat16") != std::string::npos) prec = Precision::BF16;
  else if (prec_text.find("fp16") != std::string::npos || prec_text.find("16-bit") != std::string::npos ||
           prec_text.find("half") != std::string::npos)
    prec = Precision::FP16;
  else if (prec_text.find("fp32") != std::string::npos || prec_text.find("tf32") != std::string::npos) prec = Precision::FP32;
  else {
    prec = (year && *year < 2020) ? Precision::FP16 : Precision::BF16;
    note(std::string("precision ") + (prec_text.empty() ? "not stated" : "'" + row.get("precision") + "' not specific") +
         ": " + precision_key(prec) + " mixed precision assumed");
  }
  s.hardware_preset = *hw;
  s.presets = {M.preset("base"), *hw};
  if (auto limit = stated_power_limit(row.get("hardware"))) {
    s.assign[V("power_limit")] = *limit;
    note("board power limited to " + fmt(*limit) + " W (hardware cell): the sustained clock scales the measured matmul ceiling");
  }
  if (prec != Precision::BF16 && prec != Precision::FP16) {
    std::string p = *hw + "_" + precision_key(prec);
    // MXFP8 GEMMs run at the FP8 tensor rate (Blackwell); without an MXFP8 preset the FP8 one is used.
    if (prec == Precision::MXFP8 && preset_problem(lib, p) == "missing" && preset_problem(lib, *hw + "_fp8").empty()) {
      note("MXFP8 GEMMs taken at the FP8 peak and measured FP8 ceiling of " + *hw + "_fp8");
      p = *hw + "_fp8";
    }
    if (auto problem = preset_problem(lib, p); !problem.empty())
      return fail(problem == "missing" ? std::string(precision_key(prec)) + " training on " + row.get("hardware") + ": no preset " + p +
                                             " with that precision's peak and measured ceiling"
                                       : "precision preset " + p + " does not load: " + problem);
    s.presets.push_back(p);
    if (prec == Precision::FP8 || prec == Precision::MXFP8) s.presets.push_back(M.preset("fp8_recipe"));
  }
  s.variants[M.variant("precision")] = M.precision_key(precision_key(prec));

  // ---- model shape --------------------------------------------------------------------------------------
  const auto layers = c.num("layers"), hidden = c.num("hidden"), heads = c.num("heads"), vocab = c.num("vocab");
  auto kv = c.num("kv_heads");
  auto ffn = c.num("ffn_hidden");
  const auto head_dim = c.num("head_dim");
  const auto params_b = c.num("params_b");
  if (!c.bad.empty()) {
    std::string list;
    for (const auto& b : c.bad) list += (list.empty() ? "" : ", ") + b;
    return fail("unreadable numbers: " + list);
  }
  {
    std::vector<std::string> missing;
    if (!layers) missing.push_back("layers");
    if (!hidden) missing.push_back("hidden");
    if (!heads) missing.push_back("heads");
    if (!seq) missing.push_back("seq_len");
    if (!vocab) missing.push_back("vocab");
    if (!missing.empty()) {
      std::string list;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      return fail("model shape incomplete: " + list + " not given");
    }
  }
  // ---- mixture of experts (the `moe` column: "experts=8;top_k=2;shared=0;expert_ffn=14336;moe_layers=all;...") ----
  const bool moe = row.has("moe") || row.has("active_params_b") || (row.has("ep") && c.num("ep").value_or(1) > 1);
  std::optional<MoeShape> moe_shape;
  if (moe) {
    auto parsed = parse_moe_cell(row.get("moe"), *layers);
    if (!parsed.missing.empty()) return fail("mixture-of-experts row: " + parsed.missing);
    moe_shape = parsed.shape;
    s.presets.push_back(M.preset("moe"));
    // The part's measured grouped-GEMM rate, in the row's precision when the part has it measured there.
    if (!hw_rule->moe.empty()) {
      std::string p = hw_rule->moe;
      if (prec != Precision::BF16 && prec != Precision::FP16) {
        if (const std::string q = p + "_" + precision_key(prec); preset_problem(lib, q) != "missing") p = q;
        else note(std::string("grouped GEMMs at the share of ") + p + " (measured in 16-bit precision): no " + precision_key(prec) + " grouped-GEMM measurement for this part");
      }
      if (auto problem = preset_problem(lib, p); !problem.empty())
        return fail(problem == "missing" ? "hardware '" + row.get("hardware") + "' names grouped-GEMM preset " + p + ", which does not exist"
                                         : "grouped-GEMM preset " + p + " does not load: " + problem);
      s.presets.push_back(p);
      note("routed experts' grouped GEMMs at the part's measured grouped-kernel rate (" + p + ")");
    }
    s.assign[V("n_moe_layers")] = moe_shape->moe_layers;
    s.assign[V("n_experts")] = moe_shape->experts;
    s.assign[V("active_experts")] = moe_shape->top_k;
    s.assign[V("shared_experts")] = moe_shape->shared;
    s.assign[V("expert_ffn_hidden")] = moe_shape->expert_ffn;
    if (moe_shape->capacity_factor) {
      s.assign[V("capacity_factor")] = *moe_shape->capacity_factor;
      s.variants[M.variant("moe_padding")] = M.variant(*moe_shape->capacity_factor > 1 ? "moe_padded" : "moe_dropless");
      if (*moe_shape->capacity_factor > 1) note("capacity factor " + fmt(*moe_shape->capacity_factor) + ": routed buffers padded to capacity (token dropping)");
    }
    const double ep = c.num("ep").value_or(1);
    if (!row.has("ep")) note("ep not given: 1 (every rank holds every expert)");
    s.assign[V("ep")] = ep;
    if (!ffn) ffn = moe_shape->expert_ffn;  // every layer is MoE or the dense width is unstated: the expert width stands in
  }
  if (!kv) kv = heads;
  s.assign[V("layers")] = *layers;
  s.assign[V("hidden")] = *hidden;
  s.assign[V("heads")] = *heads;
  s.assign[V("kv_heads")] = *kv;
  s.assign[V("vocab")] = *vocab;
  s.assign[V("seq_len")] = *seq;
  if (head_dim && std::fabs(*head_dim * *heads - *hidden) > 0.5) s.assign[V("head_dim")] = *head_dim;

  // ---- parallel layout -----------------------------------------------------------------------------------
  if (!gpus || *gpus < 1) return fail("gpu_count not given");
  const auto tp_c = c.num("tp"), pp_c = c.num("pp"), dp_c = c.num("dp"), cp_c = c.num("cp"), vp_c = c.num("vp");
  const std::string zero = lower(row.get("zero_fsdp"));
  const bool sharded = !zero.empty() && zero != "no" && zero != "none";
  if (!tp_c && !pp_c && !dp_c && !cp_c && !sharded && *gpus > 1)
    return fail("parallel layout not stated: no tp, pp, dp or ZeRO/FSDP for a " + fmt(*gpus) + "-GPU run");
  double tp = tp_c.value_or(1), pp = pp_c.value_or(1), cp = cp_c.value_or(1);
  if (!tp_c && *gpus > 1) note("tp not given: 1");
  if (!pp_c && *gpus > 1) note("pp not given: 1");
  for (double v : {tp, pp, cp})
    if (v < 1 || !whole(v)) return fail("parallel degrees must be whole numbers of at least 1");
  double dp = dp_c.value_or(*gpus / (tp * pp * cp));
  if (!whole(dp) || dp < 1) return fail("gpu_count " + fmt(*gpus) + " is not a multiple of tp x pp x cp = " + fmt(tp * pp * cp));
  if (std::fabs(dp * tp * pp * cp - *gpus) > 0.5)
    return fail("layout tp " + fmt(tp) + " x pp " + fmt(pp) + " x cp " + fmt(cp) + " x dp " + fmt(dp) + " does not equal gpu_count " + fmt(*gpus));
  s.assign[V("tp")] = tp;
  s.assign[V("pp")] = pp;
  s.assign[V("dp")] = dp;
  s.assign[V("cp")] = cp;
  if (!vp_c && pp > 1) s.unstated["interleave"] = "";
  if (vp_c && *vp_c > 1) {
    s.assign[V("vp")] = *vp_c;
    s.variants[M.variant("pipeline_schedule")] = M.variant("interleaved");
    s.variants[M.variant("pipeline_in_flight")] = M.variant("interleaved");
  }
  // Megatron's rank order puts tensor, then context, then data parallel ranks next to each other, so a
  // pipeline neighbour is tp x cp x dp ranks away.
  s.assign[V("pp_stride")] = tp * cp * dp;
  // The scale-out fabric is sized for at least the job: switch tiers follow from the GPUs it connects.
  s.assign[V("site_gpus")] = *gpus;
  if (*heads < tp) return fail("tp " + fmt(tp) + " exceeds the " + fmt(*heads) + " attention heads");
  if (sharded) {
    int stage = 3;
    if (zero.find("zero-1") != std::string::npos || zero.find("zero1") != std::string::npos || zero.find("stage 1") != std::string::npos ||
        zero.find("distributed optimizer") != std::string::npos)
      stage = 1;
    else if (zero.find("zero-2") != std::string::npos || zero.find("zero2") != std::string::npos || zero.find("stage 2") != std::string::npos ||
             zero.find("shard_grad_op") != std::string::npos)
      stage = 2;
    s.assign[V("zero_stage")] = stage;
  }
  const std::string sp_text = lower(row.get("seq_parallel"));
  if (tp > 1) {
    if (sp_text.rfind("yes", 0) == 0 || sp_text == "true" || sp_text == "1") {
      // par.sp = par.tp by the model's own relation
    } else if (sp_text.rfind("no", 0) == 0 || sp_text == "false" || sp_text == "0") {
      s.assign[V("sp")] = 1;
    } else if (year && *year < 2023) {
      s.assign[V("sp")] = 1;
      note("sequence parallelism not stated; published " + std::to_string(*year) + ", before it was common (Korthikanti et al. 2022): none");
    } else {
      note("sequence parallelism not stated: assumed on with tensor parallelism");
    }
  } else {
    s.assign[V("sp")] = 1;
  }

  // ---- batch ---------------------------------------------------------------------------------------------
  std::optional<double> global = c.num("global_batch_seqs");
  if (!global && row.has("global_batch_tokens")) {
    const std::string t = row.get("global_batch_tokens");
    if (auto v = parse_plain_number(t)) {
      global = *v / *seq;
      if (!whole(*global)) return fail("global_batch_tokens " + t + " is not a whole number of " + fmt(*seq) + "-token sequences");
    } else if (auto dec = parse_scaled_count(t)) {
      auto bin = parse_binary_count(t);
      if (bin && whole(*bin / *seq)) {
        global = *bin / *seq;
        note("global batch '" + t + "' read as " + fmt(*bin) + " tokens (binary prefix): " + fmt(*global) + " sequences");
      } else if (whole(*dec / *seq)) {
        global = *dec / *seq;
        note("global batch '" + t + "' read as " + fmt(*dec) + " tokens: " + fmt(*global) + " sequences");
      } else {
        return fail("global batch '" + t + "' is not a whole number of " + fmt(*seq) + "-token sequences");
      }
    } else {
      return fail("global batch '" + t + "' is not a number the tool reads (a ramp or a range?)");
    }
  }
  auto micro = c.num("micro_batch");
  auto accum = c.num("grad_accum");
  if (!global && micro && accum) {  // stated per-GPU micro-batch, accumulation and data-parallel degree
    global = *micro * *accum * dp;
    note("global batch not given: micro_batch x grad_accum x dp = " + fmt(*global) + " sequences");
  }
  if (!global) return fail("global batch not given");
  if (!micro) {
    if (accum) micro = *global / (*accum * dp);
    else {
      micro = 1;
      note("micro_batch not given: 1 (Megatron-LM's usual setting; the same paper's Table 2 states 1 for PTD-P)");
      s.unstated["micro_batch"] = s.assumptions.back();
    }
  }
  if (!whole(*micro) || *micro < 1) return fail("micro-batch " + fmt(*micro) + " is not a whole number of sequences");
  const double per_replica = *global / dp;
  if (!whole(per_replica)) return fail("global batch " + fmt(*global) + " does not split evenly over " + fmt(dp) + " data-parallel replicas");
  const double m = per_replica / *micro;
  if (!whole(m) || m < 1) return fail("global batch " + fmt(*global) + " / (micro-batch " + fmt(*micro) + " x dp " + fmt(dp) + ") is not a whole number of micro-batches");
  if (accum && std::fabs(*accum - m) > 0.5)
    return fail("batch inconsistent: micro_batch x grad_accum x dp = " + fmt(*micro * *accum * dp) + ", global batch " + fmt(*global));
  s.assign[V("micro_batch")] = *micro;
  s.assign[V("grad_accum")] = m;

  // ---- recomputation and attention kernel ------------------------------------------------------------------
  const std::string rc = row.get("act_recompute");
  double recompute = 0;
  std::string memory_mode = "recompute_none", recompute_variant;
  if (const RecomputeRule* rule = match_recompute(M, rc, row.get("hardware"))) {
    recompute = rule->fraction;
    recompute_variant = rule->fraction_variant;
    // A policy that saves (or re-runs only) the attention kernel states the attention core's own share.
    if (rule->attention) s.assign[V("attn_recompute")] = *rule->attention;
    memory_mode = rule->memory;
    note("act_recompute '" + rc + "': " + rule->why);
  } else if (trim(rc).empty()) {
    note("activation recomputation not stated: none");
    s.unstated["recompute"] = s.assumptions.back();
  } else {
    note("act_recompute '" + rc + "' matches no [[recompute]] rule: read as no recomputation");
  }
  // A policy whose recomputed share depends on the model's shape is derived by the model (a variant).
  if (recompute_variant.empty()) s.assign[V("recompute")] = recompute;
  else s.variants[V("recompute")] = M.variant(recompute_variant);
  // The memory the layout needs follows the recompute mode (the time follows the fraction above).
  s.variants[M.variant("activation_values")] = M.variant(memory_mode);
  s.variants[M.variant("score_values")] = M.variant(memory_mode);
  const std::string fw = lower(row.get("framework"));
  const bool flash_named = fw.find("flash") != std::string::npos || fw.find("xformers") != std::string::npos ||
                           fw.find("efficient") != std::string::npos;
  bool flash = true;
  if (!flash_named) {
    if (year && *year < 2023) {
      flash = false;
      note("published " + std::to_string(*year) + ", before fused attention kernels were common (FlashAttention, mid-2022): materialising attention");
    } else if (!year) {
      note("attention kernel not stated and no publication year found: FlashAttention assumed");
    }
  }
  // Layers: base, attention kernel, fitted efficiencies, then the hardware (already in the list).
  s.presets.insert(s.presets.begin() + 1, {M.preset(flash ? "flash_attention" : "materialized_attention"), M.preset("fitted")});
  // How the framework schedules each axis's collectives: a preset per axis, layered last so that its overlap
  // physics replaces any fitted share.
  for (const ScheduleRule* r : match_schedules(M, row.get("framework") + " " + row.get("zero_fsdp") + " " + row.get("moe") + " " + row.get("notes"))) {
    s.presets.push_back(r->preset);
    note(r->axis + " schedule: " + r->why);
  }

  // ---- feed-forward form and tied output: whichever matches the stated parameter count ------------------------
  struct Form {
    double matrices, d_ffn, untied;
  };
  std::vector<Form> forms;
  if (ffn) {
    for (double wm : {2.0, 3.0})
      for (double u : {0.0, 1.0}) forms.push_back({wm, *ffn, u});
  } else {
    // Without a width the parameter count cannot tell a 4h MLP from an 8h/3 gated block (both hold
    // 8 h^2 per layer), so only the plain MLP is considered and the count decides the tied output.
    for (double u : {0.0, 1.0}) forms.push_back({2, 4 * *hidden, u});
  }
  Form chosen = ffn ? Form{std::fabs(*ffn / *hidden - 4) < 0.01 ? 2.0 : 3.0, *ffn, 0} : Form{2, 4 * *hidden, 0};
  if (moe) {
    // Mixture-of-experts models in the rows use gated experts (Mixtral, Llama 4, DeepSeek, MaxText's
    // Mixtral-like configs); the stated total, when there is one, decides the tied output below.
    forms.clear();
    for (double u : {0.0, 1.0}) forms.push_back({3, *ffn, u});
    chosen = {3, *ffn, 1};
  }
  const uint32_t total_params = lookup_variable(reg, V(moe ? "moe_params_total" : "params_total"), "validate mapping variable");
  auto count = [&](const Form& f) -> std::optional<double> {
    std::map<uint32_t, double> a;
    for (const auto& [name, v] : s.assign)
      if (auto id = reg.find_var(name)) a[*id] = v;
    a[lookup_variable(reg, V("ffn_matrices"), "validate mapping variable")] = f.matrices;
    a[lookup_variable(reg, V("ffn_hidden"), "validate mapping variable")] = f.d_ffn;
    a[lookup_variable(reg, V("untied_output"), "validate mapping variable")] = f.untied;
    a[lookup_variable(reg, V("norm_params"), "validate mapping variable")] = M.constant("norm_params");
    // The rows describe multi-head or grouped-query attention (validate/base selects it for the prediction too).
    const std::map<uint32_t, std::string> variants{
        {lookup_variable(reg, M.variant("attention_params"), "validate mapping variable"), M.variant("attention_kind")}};
    // A parameter count is a sum of products of whole numbers, which the reference interpreter's doubles
    // give exactly at a fraction of the GiNaC resolver's cost; the resolver decides where the cone leaves
    // an input missing or gives no finite value.
    if (auto n = interpreted_value(reg, a, variants, total_params)) return n;
    Resolver r(reg, a, variants);
    return r.resolve(total_params).number;
  };
  if (params_b) {
    double best = INFINITY;
    std::optional<double> best_count;
    for (const auto& f : forms)
      if (auto n = count(f); n && *n > 0) {
        double e = std::fabs(std::log(*n / (*params_b * 1e9)));
        if (e < best - 1e-12) best = e, chosen = f, best_count = n;
      }
    if (best_count && best > 0.1)
      note("no feed-forward form reproduces the stated " + fmt(*params_b) + "B parameters (closest " + fmt(*best_count / 1e9) + "B)");
  } else if (moe) {
    note("total parameter count not given: gated experts, output projection untied (as Mixtral and Llama 4 configs)");
  } else {
    note("parameter count not given: " + std::string(chosen.matrices == 3 ? "gated" : "plain") + " FFN, output tied to the embedding");
    chosen.untied = 0;
  }
  if (!ffn) note("ffn_hidden not given: 4 x hidden, plain MLP");
  s.assign[V("ffn_matrices")] = chosen.matrices;
  s.assign[V("ffn_hidden")] = chosen.d_ffn;
  s.assign[V("untied_output")] = chosen.untied;
  if (!moe) {
    s.assign[V("expert_ffn_hidden")] = chosen.d_ffn;
    if (auto n = count(chosen)) s.assign[V("params_used")] = *n;
    // The utilization columns count N the source's way, so the stated count is the one to convert with.
    if (params_b) s.assign[V("scaling_params")] = *params_b * 1e9;
  } else if (auto active = c.num("active_params_b")) {
    // MoE utilization in the rows counts active parameters (top-k and shared experts plus the router).
    s.assign[V("scaling_params")] = *active * 1e9;
  }

  // ---- energy basis, run length, network ---------------------------------------------------------------------
  if (auto w = c.num("power_w_per_gpu"); w && *w > 0) s.assign[V("power")] = *w;
  if (total_tokens) s.assign[V("training_tokens")] = *total_tokens;
  if (!c.bad.empty()) {
    std::string list;
    for (const auto& b : c.bad) list += (list.empty() ? "" : ", ") + b;
    return fail("unreadable numbers: " + list);
  }
  s.assumptions.insert(s.assumptions.end(), c.readings.begin(), c.readings.end());
  s.assumptions.insert(s.assumptions.end(), facts.begin(), facts.end());
  return s;
}

ResolvedScenario resolve_scenario(const Registry& reg, const PresetLibrary& lib, const RowScenario& s) {
  ResolvedScenario out;
  for (const auto& name : s.presets) {
    const std::shared_ptr<const Preset> p = lib.load_shared(name);
    for (const auto& [v, x] : p->assignments) out.assignments[v] = x;
    for (const auto& [v, k] : p->variants) out.variants[v] = k;
  }
  for (const auto& [name, x] : s.assign) out.assignments[lookup_variable(reg, name)] = x;
  for (const auto& [name, k] : s.variants) {
    uint32_t v = lookup_variable(reg, name);
    if (auto err = variant_selector_error(reg, v, k); !err.empty()) throw PresetError(err);
    out.variants[v] = k;
  }
  return out;
}

}  // namespace gs::validate
