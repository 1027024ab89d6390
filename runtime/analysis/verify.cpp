#include "runtime/analysis/verify.h"

#include "image/eval.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include "runtime/analysis/output.h"
#include "runtime/format.h"
#include "runtime/analysis/scenario.h"
#include "runtime/graph.h"
#include "runtime/jit/jit.h"
#include "runtime/presets.h"
#include "runtime/rng.h"
#include "runtime/resolver.h"
#include "runtime/symbolic.h"

namespace gs {

using analysis_output::json;
namespace fs = std::filesystem;

namespace {

VerifyCheck make(const std::string& name) { return VerifyCheck{name, "ok", "", {}, 0, std::nullopt}; }

void fail(VerifyCheck& c, std::string detail) {
  c.status = "fail";
  c.details.push_back(std::move(detail));
}

void warn(VerifyCheck& c, std::string detail) {
  if (c.status == "ok") c.status = "warn";
  c.details.push_back(std::move(detail));
}

std::string plural(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string names_of(const Registry& reg, const std::vector<uint32_t>& vars, size_t limit = 8) {
  std::string s;
  for (size_t i = 0; i < vars.size() && i < limit; ++i) s += (i ? ", " : "") + reg.var(vars[i]).name;
  if (vars.size() > limit) s += fmt::format(", +{} more", vars.size() - limit);
  return s;
}

// Strongly connected components with more than one member, or a member with an edge to itself
// (Tarjan's algorithm, iterative so a long chain cannot overflow the stack).
std::vector<std::vector<uint32_t>> strong_cycles(const std::vector<std::vector<uint32_t>>& edges) {
  const size_t n = edges.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<uint32_t> stack;
  std::vector<std::vector<uint32_t>> out;
  int counter = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    std::vector<std::pair<uint32_t, size_t>> work{{root, 0}};
    while (!work.empty()) {
      auto& [v, next] = work.back();
      if (next == 0 && index[v] < 0) {
        index[v] = low[v] = counter++;
        stack.push_back(v), on_stack[v] = 1;
      }
      if (next < edges[v].size()) {
        uint32_t w = edges[v][next++];
        if (index[w] < 0) work.push_back({w, 0});
        else if (on_stack[w]) low[v] = std::min(low[v], index[w]);
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<uint32_t> comp;
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back(), on_stack[w] = 0;
          comp.push_back(w);
        } while (w != v);
        const bool self_loop = std::find(edges[v].begin(), edges[v].end(), v) != edges[v].end();
        if (comp.size() > 1 || self_loop) {
          std::sort(comp.begin(), comp.end());
          out.push_back(std::move(comp));
        }
      }
      const uint32_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- structure

VerifyCheck check_cycles(const Registry& reg) {
  VerifyCheck c = make("cycles");
  // Edges from identities alone: these hold in every scenario, so a cycle among them can never resolve.
  std::vector<std::vector<uint32_t>> identity_edges(reg.var_count());
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const Relation& rel = reg.relation(r);
    if (rel.role != Role::Identity || rel.lhs_var < 0 || size_t(rel.lhs_var) >= reg.var_count()) continue;
    for (uint32_t d : relation_value_deps(rel))
      if (d < reg.var_count()) identity_edges[d].push_back(uint32_t(rel.lhs_var));
  }
  auto hard = strong_cycles(identity_edges);
  auto all = Graph(reg).cycles();
  for (const auto& cyc : hard) fail(c, "cycle of identities (unresolvable in every scenario): " + names_of(reg, cyc));
  const size_t soft = all.size() >= hard.size() ? all.size() - hard.size() : 0;
  if (soft)
    for (const auto& cyc : all)
      if (std::find(hard.begin(), hard.end(), cyc) == hard.end())
        warn(c, "cycle through a variant, approximation or other relation (a selection may close it): " + names_of(reg, cyc));
  c.summary = hard.empty() && soft == 0 ? "no cycles"
                                        : fmt::format("{} of identities, {} depending on the selection", hard.size(), soft);
  return c;
}

VerifyCheck check_units(const Registry& reg) {
  VerifyCheck c = make("units");
  size_t declared = 0, nonconstant = 0;
  for (uint32_t v = 0; v < reg.var_count(); ++v) {
    const Variable& var = reg.var(v);
    if (var.is_constant) continue;
    ++nonconstant;
    if (!var.unit.empty() && std::isfinite(var.unit_scale) && var.unit_scale > 0) ++declared;
    else fail(c, var.name + " has no usable unit (unit '" + var.unit + "', scale " + fmt::format("{:g}", var.unit_scale) + ")");
  }
  const auto cov = reg.coverage();
  c.summary = fmt::format("{}/{} variables declare a unit; {}/{} relations unit-checked by the compiler", declared, nonconstant,
                          cov.relations_unit_checked, cov.relations);
  return c;
}

VerifyCheck check_references(const Registry& reg) {
  VerifyCheck c = make("references");
  const size_t nrefs = reg.image().refs.size();
  std::vector<uint32_t> unreferenced;
  size_t relations_without = 0;
  for (uint32_t v = 0; v < reg.var_count(); ++v) {
    const Variable& var = reg.var(v);
    for (uint32_t r : var.refs)
      if (r >= nrefs) fail(c, fmt::format("{} cites reference #{} (the image holds {})", var.name, r, nrefs));
    if (!var.is_constant && var.refs.empty()) unreferenced.push_back(v);
  }
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const Relation& rel = reg.relation(r);
    for (uint32_t x : rel.refs)
      if (x >= nrefs) fail(c, fmt::format("{} cites reference #{} (the image holds {})", rel.name, x, nrefs));
    if (rel.refs.empty()) {
      ++relations_without;
      warn(c, rel.name + " cites no reference");
    }
  }
  if (!unreferenced.empty()) warn(c, "variables without a reference: " + names_of(reg, unreferenced));
  const auto cov = reg.coverage();
  c.summary = fmt::format("{}/{} variables and {}/{} relations cite a reference", cov.with_references, cov.non_constant_variables,
                          cov.relations_with_references, cov.relations);
  return c;
}

// The one postfix validator (image/eval.h), with the registry's ids and this relation field's locals.
std::string expression_error(const Registry& reg, const Expr& e, bool locals_allowed) {
  return postfix_error(e, {reg.var_count(), locals_allowed});
}

VerifyCheck check_symbols(const Registry& reg) {
  VerifyCheck c = make("symbols");
  size_t expressions = 0;
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const Relation& rel = reg.relation(r);
    auto field = [&](const char* what, const Expr& e, bool locals) {
      if (e.empty()) return;
      ++expressions;
      if (auto err = expression_error(reg, e, locals); !err.empty()) fail(c, rel.name + " (" + what + "): " + err);
    };
    field("right side", rel.rhs, rel.kind == Kind::Iterative);
    field("left side", rel.lhs, false);
    field("validity", rel.validity, false);
    field("start", rel.initial, false);
    field("iterations", rel.iterations, false);
    for (const auto& p : rel.parameters) field("parameter", p, false);
    if (rel.role == Role::Constraint) {
      if (rel.lhs.empty() || rel.rhs.empty()) fail(c, rel.name + ": a constraint without both sides");
    } else if (rel.lhs_var < 0 || size_t(rel.lhs_var) >= reg.var_count()) {
      fail(c, rel.name + fmt::format(": a value relation whose left side is not a registered variable (#{})", rel.lhs_var));
    }
    if (rel.indep_var >= 0 && size_t(rel.indep_var) >= reg.var_count())
      fail(c, rel.name + fmt::format(": independent variable #{} is not registered", rel.indep_var));
    if (rel.system >= reg.image().systems.size()) fail(c, rel.name + ": unknown system");
    // The graph's edges must be exactly the variables the expressions read, or every graph answer is off.
    std::vector<uint32_t> read;
    for (const Expr* e : {&rel.lhs, &rel.rhs, &rel.validity, &rel.initial, &rel.iterations})
      for (uint32_t v : expr_variables(*e)) read.push_back(v);
    for (const auto& p : rel.parameters)
      for (uint32_t v : expr_variables(p)) read.push_back(v);
    if (rel.indep_var >= 0) read.push_back(uint32_t(rel.indep_var));
    std::sort(read.begin(), read.end());
    read.erase(std::unique(read.begin(), read.end()), read.end());
    auto deps = reg.relation_deps(r);
    std::vector<uint32_t> stored(deps.begin(), deps.end());
    if (rel.lhs_var >= 0) stored.erase(std::remove(stored.begin(), stored.end(), uint32_t(rel.lhs_var)), stored.end()),
                          read.erase(std::remove(read.begin(), read.end(), uint32_t(rel.lhs_var)), read.end());
    if (stored != read) fail(c, rel.name + ": the image's dependency list differs from the variables its expressions read");
  }
  for (uint32_t v = 0; v < reg.var_count(); ++v)
    if (reg.var(v).system >= reg.image().systems.size()) fail(c, reg.var(v).name + ": unknown system");
  c.summary = c.status == "ok" ? fmt::format("{} expressions name only registered variables and functions", expressions)
                               : plural(c.details.size(), "malformed expression or id", "malformed expressions or ids");
  return c;
}

VerifyCheck check_trivial(const Registry& reg) {
  VerifyCheck c = make("trivial");
  sym::Symbols symbols(&reg.var_names());
  const sym::VarValue constants = [&](uint32_t w) -> std::optional<GiNaC::ex> {
    if (reg.var(w).is_constant) return sym::number(reg.var(w).value);
    return std::nullopt;
  };
  size_t checked = 0;
  auto judge = [&](const Relation& rel, const char* what, const std::function<GiNaC::ex()>& condition) {
    ++checked;
    try {
      if (auto d = sym::decide(condition()))
        fail(c, fmt::format("{} ({}) is always {}, whatever the inputs", rel.name, what, *d ? "true" : "false"));
    } catch (const std::exception& e) {
      fail(c, fmt::format("{} ({}) cannot be evaluated: {}", rel.name, what, e.what()));
    }
  };
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const Relation& rel = reg.relation(r);
    if (rel.role == Role::Constraint && !rel.lhs.empty() && !rel.rhs.empty())
      judge(rel, "constraint", [&] {
        return sym::relation(rel.compare, sym::build(rel.lhs, constants, symbols).value, sym::build(rel.rhs, constants, symbols).value);
      });
    if (rel.role == Role::Approximation && !rel.validity.empty())
      judge(rel, "validity", [&] { return sym::build(rel.validity, constants, symbols).value; });
  }
  c.summary = c.status == "ok" ? fmt::format("none of {} constraints and validity conditions is decided without inputs", checked)
                               : plural(c.details.size(), "condition decided without inputs", "conditions decided without inputs");
  return c;
}

VerifyCheck check_constants(const Registry& reg) {
  VerifyCheck c = make("constants");
  size_t n = 0;
  for (uint32_t v = 0; v < reg.var_count(); ++v) {
    const Variable& var = reg.var(v);
    if (!var.is_constant) continue;
    ++n;
    const auto& systems = reg.image().systems;
    if (var.system >= systems.size() || systems[var.system].name != "physics")
      fail(c, var.name + " is a constant outside the physics system");
    if (var.refs.empty()) fail(c, var.name + " is a constant without a source");
    if (!std::isfinite(var.value)) fail(c, var.name + " has no finite value");
    if (!reg.definitions(v).empty()) fail(c, var.name + " is a constant on the left side of a relation");
  }
  c.summary = fmt::format("{} universal constants, all in physics with a source and never defined by a relation", n);
  if (c.status != "ok") c.summary = plural(c.details.size(), "breach", "breaches") + " of the constants rule";
  return c;
}

// ---- the image against its sources

VerifyCheck check_freshness(const Registry& reg) {
  VerifyCheck c = make("freshness");
  const Image& img = reg.image();
  if (img.file_hashes.size() != img.files.size()) {
    fail(c, fmt::format("the image lists {} source files but {} hashes", img.files.size(), img.file_hashes.size()));
    c.summary = "the image carries no usable source hashes";
    return c;
  }
  size_t matched = 0, changed = 0, absent = 0;
  for (size_t i = 0; i < img.files.size(); ++i) {
    const std::string& path = img.files[i];
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      ++absent;
      warn(c, path + ": not found from " + fs::current_path().string() + ", so it cannot be compared");
      continue;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string hash = sha256_hex(text.data(), text.size());
    if (hash == img.file_hashes[i]) {
      ++matched;
    } else {
      ++changed;
      fail(c, path + " changed since the image was compiled (image " + img.file_hashes[i].substr(0, 12) + ", on disk " +
                  hash.substr(0, 12) + "); rebuild the image");
    }
  }
  if (changed) c.summary = fmt::format("stale image: {} of {} source files changed since it was compiled", changed, img.files.size());
  else c.summary = fmt::format("{} of {} source files match the image", matched, img.files.size()) +
                   (absent ? fmt::format(" ({} not found)", absent) : "");
  return c;
}

// ---- presets

// `mentioned` collects every variable a preset assigns, selects a variant of, targets, expects or varies.
VerifyCheck check_presets(const Registry& reg, const std::string& dir, bool resolve_targets, std::set<uint32_t>& mentioned) {
  VerifyCheck c = make("presets");
  if (dir.empty() || !fs::is_directory(dir)) {
    warn(c, "no presets directory" + (dir.empty() ? std::string() : " at " + dir));
    c.summary = "no presets to check";
    return c;
  }
  PresetLibrary lib(reg, dir);
  size_t loaded = 0, targets = 0, skipped = 0, broken = 0;
  for (const PresetFile& f : preset_files(dir)) {
    if (!f.skipped.empty()) {
      ++skipped;
      continue;
    }
    Preset p;
    try {
      p = lib.load(f.path);
    } catch (const std::exception& e) {
      ++broken;
      fail(c, f.name + ": does not load: " + e.what());
      continue;
    }
    ++loaded;
    for (const auto& entry : p.assignments) mentioned.insert(entry.first);
    for (const auto& entry : p.variants) mentioned.insert(entry.first);
    for (const auto& entry : p.expected) mentioned.insert(entry.first);
    for (const auto& entry : p.uncertain) mentioned.insert(entry.first);
    for (const auto& entry : p.targets) mentioned.insert(entry.second);
    if (!resolve_targets) continue;
    try {
      Resolver resolver(reg, p.assignments, p.variants);
      for (const auto& [label, var] : p.targets) {
        ++targets;
        Resolution res = resolver.resolve(var);
        const std::string what = f.name + " [" + label + "] " + reg.var(var).name;
        if (!res.missing.empty()) {
          std::vector<uint32_t> missing;
          for (const auto& m : res.missing) missing.push_back(m.var);
          fail(c, what + " does not resolve: missing " + names_of(reg, missing, 4));
        } else if (!res.number) {
          std::string shown = sym::to_string(res.value);
          if (shown.size() > 160) shown = shown.substr(0, 160) + " ...";
          fail(c, what + " is not a real number: " + shown);
        } else if (auto e = p.expected.find(var); e != p.expected.end() && relative_difference(*res.number, e->second) > 1e-9) {
          fail(c, what + fmt::format(" = {} but [expected] says {}", format_quantity(reg.units(), reg.var(var), *res.number),
                                     format_quantity(reg.units(), reg.var(var), e->second)));
        } else if (size_t v = res.violations()) {
          warn(c, what + fmt::format(" resolves with {} violated condition(s)", v));
        }
      }
    } catch (const std::exception& e) {
      ++broken;
      fail(c, f.name + ": " + e.what());
    }
  }
  c.summary = plural(loaded, "preset loads", "presets load") + (broken ? fmt::format(", {} broken", broken) : "") +
              (resolve_targets ? ", " + plural(targets, "target", "targets") + " checked" : "; targets are resolved by the full profile") +
              (skipped ? "; " + plural(skipped, "other TOML file", "other TOML files") + " skipped" : "");
  return c;
}

// ---- the reference's audit counts

// A variable that no relation reads or defines and no preset mentions computes nothing and is never an
// input: dead weight, or a relation that was meant to use it and does not. Constants are a reference table
// (CODATA) and are not counted.
VerifyCheck check_orphans(const Registry& reg, const std::set<uint32_t>& mentioned, bool presets_read) {
  VerifyCheck c = make("orphans");
  std::vector<uint8_t> used(reg.var_count(), 0);
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    for (uint32_t v : reg.relation_deps(r))
      if (v < used.size()) used[v] = 1;
    const Relation& rel = reg.relation(r);
    for (int32_t v : {rel.lhs_var, rel.indep_var})
      if (v >= 0 && size_t(v) < used.size()) used[size_t(v)] = 1;
  }
  size_t orphans = 0;
  for (uint32_t v = 0; v < reg.var_count(); ++v) {
    if (used[v] || reg.var(v).is_constant || mentioned.count(v)) continue;
    ++orphans;
    warn(c, reg.var(v).name + " (" + reg.location(reg.var(v).span) + ")");
  }
  c.count = orphans;
  c.summary = orphans == 0 ? "every variable is in a relation or a preset"
                           : plural(orphans, "orphan variable", "orphan variables") +
                                 (presets_read ? " (in no relation and no preset)" : " (in no relation; no presets were read)");
  return c;
}

// Model source files of `threshold` lines or more: a file that long usually holds more than one subsystem
// and is easier to review split. Informational, as in the reference.
VerifyCheck check_file_sizes(const Registry& reg, size_t threshold) {
  VerifyCheck c = make("file-size");
  size_t large = 0, largest = 0, read = 0;
  std::string largest_name;
  for (const std::string& path : reg.image().files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;  // the freshness check says which sources it cannot find
    ++read;
    size_t lines = 0;
    std::string line;
    while (std::getline(in, line)) ++lines;
    if (lines > largest) largest = lines, largest_name = path;
    if (lines >= threshold) {
      ++large;
      warn(c, fmt::format("{}: {} lines", path, lines));
    }
  }
  c.count = large;
  c.summary = fmt::format("{} of {} source files have {} lines or more", large, read, threshold) +
              (read ? fmt::format(" (largest {}, {} lines)", largest_name, largest) : "");
  return c;
}

// ---- JIT against GiNaC (full)

VerifyCheck check_jit(const Registry& reg, const VerifyRequest& req) {
  VerifyCheck c = make("jit");
  // Relations are compiled in programs of kChunk relations, each relation writing its own output slot
  // (ids past the registry's) so none shadows a variable another reads. Several mid-sized modules
  // compile much faster than one module holding the whole model: LLVM's optimiser and code generator
  // cost grows faster than linearly with the size of a function.
  constexpr size_t kChunk = 32;
  const uint32_t base_id = uint32_t(reg.var_count());
  std::vector<uint32_t> relations;
  size_t iterative = 0;
  for (uint32_t r = 0; r < reg.relation_count(); ++r) {
    const Relation& rel = reg.relation(r);
    if (!defines_value(rel) || rel.rhs.empty()) continue;
    if (rel.kind == Kind::Iterative) {
      ++iterative;  // unfolded by the cone builder only under a scenario; the resolver tests cover them
      continue;
    }
    relations.push_back(r);
  }
  struct Part {
    ConeProgram program;
    CompiledCone cone;
    size_t first = 0;  // index into `relations`
  };
  std::vector<Part> parts;
  for (size_t first = 0; first < relations.size(); first += kChunk) {
    Part part;
    part.first = first;
    std::set<uint32_t> read;
    for (size_t i = first; i < relations.size() && i < first + kChunk; ++i) {
      const uint32_t r = relations[i];
      for (uint32_t v : expr_variables(reg.relation(r).rhs)) read.insert(v);
      part.program.steps.push_back({base_id + r, reg.relation(r).rhs});
      part.program.outputs.push_back(base_id + r);
    }
    part.program.inputs.assign(read.begin(), read.end());
    parts.push_back(std::move(part));
  }
  // Compiling is most of the check's time, and a Jit compiles one module at a time, so two Jits (each
  // with its own LLVM context) take alternate parts on two threads. GiNaC stays on this thread.
  static Jit jits[2];  // one per process: LLVM's setup is the expensive part
  const size_t workers = std::thread::hardware_concurrency() > 1 ? 2 : 1;
  std::string errors[2];
  auto compile_every = [&](size_t w) {
    try {
      for (size_t i = w; i < parts.size(); i += workers) parts[i].cone = jits[w].compile(parts[i].program);
    } catch (const std::exception& e) {
      errors[w] = e.what();
    }
  };
  std::thread helper;
  if (workers > 1) helper = std::thread(compile_every, size_t(1));
  compile_every(0);
  if (helper.joinable()) helper.join();
  for (const auto& e : errors)
    if (!e.empty()) {
      fail(c, "the JIT cannot compile the model's relations: " + e);
      c.summary = "JIT compile failed";
      return c;
    }
  Rng rng(req.seed);
  sym::Symbols symbols(&reg.var_names());
  size_t compared = 0;
  std::set<uint32_t> disagree;
  for (size_t trial = 0; trial < req.samples; ++trial) {
    // One random point per trial for every variable read anywhere, so all parts see the same inputs.
    std::map<uint32_t, double> point;
    std::map<uint32_t, GiNaC::ex> exact;
    auto value_of = [&](uint32_t v) {
      if (auto it = point.find(v); it != point.end()) return it->second;
      const Assumptions& a = reg.var(v).assume;
      double x = reg.var(v).is_constant ? reg.var(v).value
                 : a.binary             ? double(rng.next() & 1)
                 : a.integer            ? double(1 + rng.next() % 8)
                 : a.has_range          ? a.lo + (a.hi - a.lo) * rng.uniform()
                                        : 0.5 + 1.5 * rng.uniform();
      if (a.sign == Sign::Negative || a.sign == Sign::Nonpositive) x = -std::fabs(x) - (a.sign == Sign::Negative ? 0.1 : 0);
      point[v] = x;
      exact[v] = sym::number(x);
      return x;
    };
    for (const Part& part : parts) {
      std::vector<double> in;
      for (uint32_t v : part.program.inputs) in.push_back(value_of(v));
      std::vector<double> out(part.program.outputs.size());
      part.cone.one(in.data(), out.data());
      for (size_t k = 0; k < out.size(); ++k) {
        const uint32_t r = relations[part.first + k];
        const Relation& rel = reg.relation(r);
        std::optional<double> ginac;
        try {
          ginac = sym::to_double(sym::build(rel.rhs, [&](uint32_t v) -> std::optional<GiNaC::ex> { return exact.at(v); }, symbols).value);
        } catch (const std::exception&) {
          continue;  // undefined at this point (a division by zero); nothing to compare
        }
        if (!ginac || !std::isfinite(*ginac) || !std::isfinite(out[k])) continue;
        ++compared;
        const double scale = std::max(std::fabs(out[k]), std::fabs(*ginac));
        if (std::fabs(out[k] - *ginac) > req.tolerance * scale + 1e-300 && disagree.insert(r).second)
          fail(c, fmt::format("{}: JIT {:.17g}, GiNaC {:.17g} (relative difference {:.3g})", rel.name, out[k], *ginac,
                              std::fabs(out[k] - *ginac) / scale));
      }
    }
  }
  c.summary = fmt::format("{} relations x {} points: {} comparisons, {} disagreeing beyond {:g}", relations.size(), req.samples,
                          compared, disagree.size(), req.tolerance);
  if (iterative) c.summary += fmt::format(" ({} iterative relations left to the resolver tests)", iterative);
  return c;
}

template <class F>
VerifyCheck timed(F f) {
  auto t0 = std::chrono::steady_clock::now();
  VerifyCheck c = f();
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace

std::vector<VerifyCheck> verify_checks(const Registry& reg, const VerifyRequest& req) {
  if (req.profile != "fast" && req.profile != "full")
    throw PresetError("unknown verify profile '" + req.profile + "': use fast or full");
  std::vector<VerifyCheck> out;
  out.push_back(timed([&] { return check_cycles(reg); }));
  out.push_back(timed([&] { return check_units(reg); }));
  out.push_back(timed([&] { return check_references(reg); }));
  out.push_back(timed([&] { return check_symbols(reg); }));
  // Checks that evaluate expressions (GiNaC, the resolver, the JIT) trust the ids in them; an image
  // read from disk has had its ids checked on load, but one built in memory may not have, so after a
  // failed symbol check they are skipped rather than run on bad ids.
  const bool sound = out.back().status != "fail";
  auto guarded = [&](const std::string& name, const std::function<VerifyCheck()>& f) {
    if (sound) return timed(f);
    VerifyCheck c = make(name);
    c.status = "skip", c.summary = "skipped: the image has malformed expressions (see symbols)";
    return c;
  };
  out.push_back(guarded("trivial", [&] { return check_trivial(reg); }));
  out.push_back(timed([&] { return check_constants(reg); }));
  out.push_back(timed([&] { return check_freshness(reg); }));
  // Resolving every preset's targets grows with the preset tree (most of the fast profile's time once
  // there are dozens), so fast only loads the presets and full resolves their targets too.
  std::set<uint32_t> mentioned;
  out.push_back(guarded("presets", [&] { return check_presets(reg, req.presets_dir, req.profile == "full", mentioned); }));
  const bool presets_read = out.back().status != "skip" && !req.presets_dir.empty() && fs::is_directory(req.presets_dir);
  out.push_back(guarded("orphans", [&] { return check_orphans(reg, mentioned, presets_read); }));
  out.push_back(timed([&] { return check_file_sizes(reg, req.large_file_lines); }));
  if (req.profile == "full") out.push_back(guarded("jit", [&] { return check_jit(reg, req); }));
  return out;
}

VerifyReport verify(const Registry& reg, const VerifyRequest& req) {
  auto t0 = std::chrono::steady_clock::now();
  VerifyReport r;
  r.checks = verify_checks(reg, req);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.profile = req.profile, r.image = req.image_path, r.variables = reg.var_count(), r.relations = reg.relation_count();
  r.large_file_lines = req.large_file_lines;
  for (const auto& c : r.checks) (c.status == "fail" ? r.failed : c.status == "warn" ? r.warnings : c.status == "skip" ? r.skipped : r.ok)++;
  return r;
}

void to_json(json& j, const VerifyReport& r) {
  j = json{{"profile", r.profile}, {"image", r.image}, {"variables", r.variables}, {"relations", r.relations}};
  j["checks"] = json::array();
  for (const auto& c : r.checks) {
    json one{{"name", c.name}, {"status", c.status}, {"summary", c.summary}, {"details", c.details}, {"seconds", c.seconds}};
    if (c.count) one["count"] = *c.count;
    j["checks"].push_back(std::move(one));
  }
  j["large_file_lines"] = r.large_file_lines;
  j["ok"] = r.ok, j["warnings"] = r.warnings, j["failed"] = r.failed, j["skipped"] = r.skipped, j["passed"] = r.passed();
  j["seconds"] = r.seconds;
}

}  // namespace gs
