#include "runtime/presets.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include <sys/stat.h>
#include <toml++/toml.h>

#include "image/suggest.h"
#include "runtime/resolver.h"
#include "image/text_file.h"
#include "runtime/toml_file.h"

namespace gs {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string with_hint(std::string message, const std::string& hint) {
  return hint.empty() ? message : message + "; " + hint;
}

// Everything parse_layered needs to point at a line of the file being read.
class Reader {
 public:
  Reader(const Registry& reg, const std::string& path) : reg_(reg), path_(path) {}

  [[noreturn]] void fail(const toml::source_region& where, const std::string& message) const {
    throw PresetError(path_ + ":" + std::to_string(where.begin.line) + ": " + message);
  }

  std::string text(const toml::node& n, const std::string& what) const {
    auto s = n.value<std::string>();
    if (!s) fail(n.source(), what + " must be a string");
    return *s;
  }

  std::vector<std::string> texts(const toml::node& n, const std::string& what) const {
    if (n.is_string()) return {text(n, what)};
    const toml::array* a = n.as_array();
    if (!a) fail(n.source(), what + " must be a string or an array of strings");
    std::vector<std::string> out;
    for (const auto& item : *a) out.push_back(text(item, what));
    return out;
  }

  using SeenKeys = std::map<uint32_t, toml::source_position>;

  uint32_t variable(const std::string& name, const toml::source_region& where, const std::string& what) const {
    try {
      return lookup_variable(reg_, name, what);
    } catch (const PresetError& e) {
      fail(where, e.what());
    }
  }

  // A value with a unit in the string, or a bare number in the variable's display unit.
  double quantity(uint32_t var, const toml::node& n) const {
    if (n.is_string()) {
      try {
        return parse_quantity(reg_, var, *n.value<std::string>());
      } catch (const PresetError& e) {
        fail(n.source(), e.what());
      }
    }
    if (n.is_integer() || n.is_floating_point()) return *n.value<double>() * reg_.var(var).unit_scale;
    fail(n.source(), "the value of '" + reg_.var(var).name + "' must be a number or a string such as \"0.36 USD/(kW*h)\"");
  }

  // [uncertainty] entries: an interval ["lo", "hi"], or an inline table naming the distribution:
  //   { dist = "uniform", low, high } { dist = "normal", mean, sd } { dist = "lognormal", median, sigma }
  //   { dist = "triangular", low, mode, high }
  // Bounds, means, medians and modes carry the variable's unit; sd too; lognormal sigma is a pure number.
  void each_distribution(const toml::table& t, const std::string& prefix,
                         const std::function<void(uint32_t, const Distribution&)>& f) const {
    SeenKeys seen;
    each_distribution_in(t, prefix, f, seen);
  }

  void each_distribution_in(const toml::table& t, const std::string& prefix,
                            const std::function<void(uint32_t, const Distribution&)>& f, SeenKeys& seen) const {
    for (const auto& [key, node] : t) {
      const std::string name = prefix + std::string(key.str());
      const toml::table* spec = node.as_table();
      if (spec && !spec->contains("dist")) {
        each_distribution_in(*spec, name + ".", f, seen);
        continue;
      }
      const uint32_t v = variable(name, key.source(), "variable in [uncertainty]");
      note_once(seen, v, key.source(), "variable in [uncertainty]");
      Distribution d;
      if (const toml::array* a = node.as_array()) {
        if (a->size() != 2) fail(node.source(), "an interval for '" + name + "' needs exactly two values [low, high]");
        d.kind = Distribution::Kind::Uniform, d.a = quantity(v, *a->get(0)), d.b = quantity(v, *a->get(1));
      } else if (spec) {
        const std::string kind = text(*spec->get("dist"), "'dist'");
        if (!distribution_kind_by_name(kind, d.kind))
          fail(node.source(), with_hint("unknown distribution '" + kind + "'", did_you_mean(kind, {"uniform", "normal", "lognormal", "triangular"})));
        // An init-capture, not [&] alone: clang before 16 cannot capture a structured binding.
        auto field = [&, &node = node](const char* k) -> const toml::node& {
          const toml::node* n = spec->get(k);
          if (!n) fail(node.source(), "a " + kind + " distribution for '" + name + "' needs '" + k + "'");
          return *n;
        };
        switch (d.kind) {
          case Distribution::Kind::Uniform: d.a = quantity(v, field("low")), d.b = quantity(v, field("high")); break;
          case Distribution::Kind::Normal: d.a = quantity(v, field("mean")), d.b = quantity(v, field("sd")); break;
          case Distribution::Kind::Lognormal: {
            d.a = quantity(v, field("median"));
            auto sigma = field("sigma").value<double>();
            if (!sigma) fail(node.source(), "'sigma' of a lognormal distribution is a pure number");
            d.b = *sigma;
            break;
          }
          case Distribution::Kind::Triangular:
            d.a = quantity(v, field("low")), d.c = quantity(v, field("mode")), d.b = quantity(v, field("high"));
            break;
        }
      } else {
        fail(node.source(), "the uncertainty of '" + name + "' must be an interval [low, high] or a table with 'dist'");
      }
      if (auto error = d.validate(); !error.empty()) fail(node.source(), "'" + name + "': " + error);
      f(v, d);
    }
  }

  // Tables of variables accept quoted dotted keys ("gpu.peak_flops" = ...) and nested tables alike, so
  // one variable can be spelled twice in one table; that is refused, naming both places, rather than
  // letting the table's iteration order pick a winner.
  void each_variable(const toml::table& t, const std::string& prefix,
                     const std::function<void(uint32_t, const toml::node&)>& f, const std::string& what) const {
    SeenKeys seen;
    each_variable_in(t, prefix, f, what, seen);
  }

 private:
  void note_once(SeenKeys& seen, uint32_t v, const toml::source_region& where, const std::string& what) const {
    auto [it, fresh] = seen.emplace(v, where.begin);
    if (fresh) return;
    const toml::source_position a = std::min(it->second, where.begin), b = std::max(it->second, where.begin);
    fail(where, "'" + reg_.var(v).name + "' is given twice as a " + what + ": at " + path_ + ":" + std::to_string(a.line) + ":" +
                    std::to_string(a.column) + " and at " + path_ + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                    " (a quoted dotted key and a table spell the same name); keep one");
  }

  void each_variable_in(const toml::table& t, const std::string& prefix,
                        const std::function<void(uint32_t, const toml::node&)>& f, const std::string& what, SeenKeys& seen) const {
    for (const auto& [key, node] : t) {
      std::string name = prefix + std::string(key.str());
      if (const toml::table* inner = node.as_table()) {
        each_variable_in(*inner, name + ".", f, what, seen);
        continue;
      }
      const uint32_t v = variable(name, key.source(), what);
      note_once(seen, v, key.source(), what);
      f(v, node);
    }
  }

  const Registry& reg_;
  const std::string& path_;
};

}  // namespace

uint32_t lookup_variable(const Registry& reg, const std::string& name, const std::string& what) {
  if (auto id = reg.find_var(name)) return *id;
  throw PresetError(with_hint("unknown " + what + " '" + name + "'", did_you_mean(name, reg.var_names())));
}

double parse_quantity(const Registry& reg, uint32_t var, const std::string& text) {
  const Variable& v = reg.var(var);
  double x = 0;
  std::string unit_text;
  if (!split_quantity(text, x, unit_text) || !std::isfinite(x))
    throw PresetError("'" + text + "' is not a number with an optional unit (for '" + v.name + "')");
  if (unit_text.empty()) return x * v.unit_scale;
  std::string error;
  auto q = reg.units().parse(unit_text, &error);
  if (!q) {
    std::string hint;
    if (auto p = error.find("unknown unit '"); p != std::string::npos)
      hint = did_you_mean(error.substr(p + 14, error.size() - p - 15), reg.units().all_names());
    throw PresetError(with_hint("bad unit '" + unit_text + "' in the value of '" + v.name + "': " + error, hint));
  }
  if (!(q->dim == v.dim))
    throw PresetError("the value of '" + v.name + "' is given in " + unit_text + " (" + reg.units().describe(q->dim) +
                      "), but the variable is measured in " + v.unit + " (" + reg.units().describe(v.dim) + ")");
  return x * q->scale;
}

std::pair<uint32_t, double> parse_assignment(const Registry& reg, const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos) throw PresetError("bad assignment '" + text + "': expected NAME=VALUE[ UNIT]");
  uint32_t var = lookup_variable(reg, trim(text.substr(0, eq)), "variable in assignment");
  return {var, parse_quantity(reg, var, trim(text.substr(eq + 1)))};
}

std::pair<uint32_t, std::string> parse_selector(const Registry& reg, const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos) throw PresetError("bad variant selector '" + text + "': expected NAME=KEY");
  uint32_t var = lookup_variable(reg, trim(text.substr(0, eq)), "variable in variant selector");
  std::string key = trim(text.substr(eq + 1));
  if (auto error = variant_selector_error(reg, var, key); !error.empty()) throw PresetError(error);
  return {var, key};
}

namespace {

// What identifies the version of a file a cached preset was read from: the file the path leads to now
// (device and inode, so a path re-pointed by a link or replaced by a rename reads as another file), its
// size and modification time. One stat(2): `validate` stamps every layer of every row, and resolving the
// path's canonical name for this (a readlink per component) was a fifth of its time.
struct FileStamp {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

std::optional<FileStamp> stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{path, st.st_dev, st.st_ino, st.st_size, int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

}  // namespace

struct PresetLibrary::Cache {
  struct Entry {
    std::shared_ptr<const Preset> preset;
    std::vector<FileStamp> files;  // the file and everything it extended, transitively
  };
  std::mutex mutex;
  std::map<std::string, Entry> entries;  // by the path as located: `extends` resolves next to it
  size_t parsed = 0;
};

// One load in progress: the chain of files being extended (to refuse cycles) and every file read so far.
struct PresetLibrary::Loading {
  std::vector<std::string> stack;  // canonical paths
  std::vector<FileStamp> files;
  bool unstamped = false;  // a file whose size or time could not be read: nothing of this load is cached
};

PresetLibrary::PresetLibrary(const Registry& reg, std::string dir) : reg_(reg), dir_(std::move(dir)), cache_(std::make_shared<Cache>()) {}

size_t PresetLibrary::files_parsed() const {
  std::lock_guard<std::mutex> lock(cache_->mutex);
  return cache_->parsed;
}

std::vector<std::string> PresetLibrary::names() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (entry.path().extension() == ".toml") out.push_back(entry.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool PresetLibrary::is_external(const Preset& p) const {
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(dir_, ec), file = fs::weakly_canonical(p.path, ec);
  const auto rel = file.lexically_relative(dir);
  return rel.empty() || rel.native().starts_with("..");
}

std::string PresetLibrary::locate(const std::string& name_or_path, const std::string& base_dir) const {
  const bool is_path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".toml");
  // The error_code form: a name too long for the file system (ENAMETOOLONG) is "not there", not a throw.
  std::error_code ec;
  if (is_path && fs::exists(name_or_path, ec)) return name_or_path;
  // Relative names resolve next to the extending file first, then in the presets directory, so
  // "packs/nvlink3_hdr" finds presets/packs/nvlink3_hdr.toml.
  const std::string file = name_or_path.ends_with(".toml") ? name_or_path : name_or_path + ".toml";
  if (!fs::path(name_or_path).is_absolute()) {
    for (const std::string& dir : {base_dir, dir_}) {
      if (dir.empty()) continue;
      fs::path p = fs::path(dir) / file;
      if (fs::exists(p, ec)) return p.string();
    }
  }
  if (is_path) throw PresetError("cannot read preset file '" + name_or_path + "'");
  throw PresetError(with_hint("unknown preset '" + name_or_path + "' (looked in " + dir_ + ")", did_you_mean(name_or_path, names())));
}

Preset PresetLibrary::load(const std::string& name_or_path) const { return *load_shared(name_or_path); }

std::shared_ptr<const Preset> PresetLibrary::load_shared(const std::string& name_or_path) const {
  Loading loading;
  return load_layered(name_or_path, "", loading);
}

Preset PresetLibrary::parse(const std::string& text, const std::string& path) const {
  Loading loading;
  return parse_layered(text, path, loading);
}

std::shared_ptr<const Preset> PresetLibrary::load_layered(const std::string& name_or_path, const std::string& base_dir, Loading& loading) const {
  std::string path = locate(name_or_path, base_dir);
  // A cached copy serves while the file and all it extended are unchanged (stamps taken before reading,
  // so a file rewritten during the read is read again next time). A cached file extended no cycle when
  // it was read, and a changed one misses the cache, so cycles are looked for below, before a parse.
  const std::optional<FileStamp> stamp = stamp_of(path);
  {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    if (auto it = cache_->entries.find(path); stamp && it != cache_->entries.end()) {
      const auto& files = it->second.files;
      if (std::all_of(files.begin(), files.end(), [](const FileStamp& f) { return stamp_of(f.path) == f; })) {
        loading.files.insert(loading.files.end(), files.begin(), files.end());
        return it->second.preset;
      }
    }
  }
  const std::string canonical = fs::weakly_canonical(path).string();
  if (std::find(loading.stack.begin(), loading.stack.end(), canonical) != loading.stack.end())
    throw PresetError("preset '" + path + "' extends itself through a cycle of 'extends'");
  std::string text;
  try {
    text = read_text_file(path, "preset file");
  } catch (const TextFileError& e) {
    throw PresetError(e.what());
  }
  const size_t first_file = loading.files.size();
  if (stamp) loading.files.push_back(*stamp);
  else loading.unstamped = true;
  loading.stack.push_back(canonical);
  auto p = std::make_shared<const Preset>(parse_layered(text, path, loading));
  loading.stack.pop_back();
  std::lock_guard<std::mutex> lock(cache_->mutex);
  ++cache_->parsed;
  if (!loading.unstamped) cache_->entries[path] = {p, std::vector<FileStamp>(loading.files.begin() + long(first_file), loading.files.end())};
  return p;
}

// Appends a loaded preset's layers to `p`. A layer with a role replaces the earlier layers of that role
// (and what they extended), so a later workload takes the place of an earlier one instead of inheriting
// its pins. One rule for `extends` and for the layers a command line names.
static void append_layers(Preset& p, Preset b) {
  if (!b.role.empty()) {
    std::erase_if(p.parts, [&](const PresetLayer& l) { return std::find(l.roles.begin(), l.roles.end(), b.role) != l.roles.end(); });
    for (auto& l : b.parts) l.roles.push_back(b.role);
  }
  p.parts.insert(p.parts.end(), std::make_move_iterator(b.parts.begin()), std::make_move_iterator(b.parts.end()));
}

// The merged view of `p.parts`, layer by layer: later values win; targets keep their first position.
static void merge_layers(Preset& p) {
  p.assignments.clear(), p.variants.clear(), p.expected.clear(), p.uncertain.clear();
  p.targets.clear(), p.notes.clear(), p.layers.clear();
  for (const PresetLayer& l : p.parts) {
    for (const auto& [v, x] : l.assignments) p.assignments[v] = x;
    for (const auto& [v, k] : l.variants) p.variants[v] = k;
    for (const auto& [v, x] : l.expected) p.expected[v] = x;
    for (const auto& [v, d] : l.uncertain) {
      p.uncertain[v] = d;
      // An uncertain input needs a point value for resolve; without one, its median stands for it.
      if (!p.assignments.count(v)) p.assignments[v] = d.quantile(0.5);
    }
    for (const auto& t : l.targets) {
      auto it = std::find_if(p.targets.begin(), p.targets.end(), [&](const auto& e) { return e.first == t.first; });
      if (it == p.targets.end()) p.targets.push_back(t);
      else it->second = t.second;
    }
    p.notes.insert(p.notes.end(), l.notes.begin(), l.notes.end());
    p.layers.push_back(l.name);
  }
}

Preset PresetLibrary::compose(const std::vector<std::string>& names, std::vector<Preset>* loaded) const {
  if (names.size() == 1) {
    Preset one = load(names.front());
    if (loaded) loaded->push_back(one);
    return one;
  }
  Preset p;
  for (const auto& name : names) {
    Preset b = load(name);
    if (loaded) loaded->push_back(b);
    p.name += (p.name.empty() ? "" : " + ") + b.name;
    if (!b.source.empty()) p.source += (p.source.empty() ? "" : "; ") + b.name + ": " + b.source;
    append_layers(p, std::move(b));
  }
  p.description = "layered: " + p.name;
  merge_layers(p);
  return p;
}

Preset PresetLibrary::parse_layered(const std::string& text, const std::string& path, Loading& loading) const {
  const toml::table doc = parse_toml_text(text, path);
  const Reader r(reg_, path);
  static const std::vector<std::string> kKeys = {"name", "role", "description", "source", "notes", "extends",
                                                 "variants", "assign", "targets", "expected", "uncertainty"};
  for (const auto& [key, node] : doc) {
    if (std::find(kKeys.begin(), kKeys.end(), key.str()) == kKeys.end())
      r.fail(key.source(), with_hint("unknown preset key '" + std::string(key.str()) + "'", did_you_mean(std::string(key.str()), kKeys)));
  }
  auto table = [&](const char* key) -> const toml::table* {
    const toml::node* n = doc.get(key);
    if (!n) return nullptr;
    if (!n->is_table()) r.fail(n->source(), std::string("'") + key + "' must be a table");
    return n->as_table();
  };

  // Layers first, in order, so this file's own values win. A layer with a role replaces the earlier layers
  // of that role (and what they extended).
  Preset p;
  if (const toml::node* n = doc.get("extends")) {
    const std::string dir = fs::path(path).parent_path().string();
    for (const std::string& base : r.texts(*n, "'extends'")) {
      Preset b;
      try {
        b = *load_layered(base, dir, loading);
      } catch (const PresetError& e) {
        r.fail(n->source(), std::string("in preset '") + base + "' extended here: " + e.what());
      }
      append_layers(p, std::move(b));
    }
  }

  PresetLayer own;
  p.path = path;
  p.name = fs::path(path).stem().string();
  if (const toml::node* n = doc.get("name")) p.name = r.text(*n, "'name'");
  if (const toml::node* n = doc.get("role")) p.role = r.text(*n, "'role'");
  if (const toml::node* n = doc.get("description")) p.description = r.text(*n, "'description'");
  if (const toml::node* n = doc.get("source")) p.source = r.text(*n, "'source'");
  if (const toml::node* n = doc.get("notes")) own.notes = r.texts(*n, "'notes'");
  own.name = p.name;

  if (const toml::table* t = table("assign"))
    r.each_variable(*t, "", [&](uint32_t v, const toml::node& n) { own.assignments[v] = r.quantity(v, n); }, "variable in [assign]");
  if (const toml::table* t = table("variants")) {
    r.each_variable(*t, "", [&](uint32_t v, const toml::node& n) {
      std::string key = r.text(n, "a variant key");
      if (auto error = variant_selector_error(reg_, v, key); !error.empty()) r.fail(n.source(), error);
      own.variants[v] = key;
    }, "variable in [variants]");
  }
  if (const toml::table* t = table("targets")) {
    // Tables iterate by key; reports list targets in the order the file gives them.
    std::vector<std::tuple<uint32_t, std::string, uint32_t>> found;
    for (const auto& [label, node] : *t)
      found.emplace_back(label.source().begin.line, std::string(label.str()),
                         r.variable(r.text(node, "a target"), node.source(), "target variable"));
    std::sort(found.begin(), found.end());
    for (const auto& [line, label, v] : found) {
      auto it = std::find_if(own.targets.begin(), own.targets.end(), [&label = label](const auto& e) { return e.first == label; });
      if (it == own.targets.end()) own.targets.emplace_back(label, v);
      else it->second = v;
    }
  }
  if (const toml::table* t = table("expected"))
    r.each_variable(*t, "", [&](uint32_t v, const toml::node& n) { own.expected[v] = r.quantity(v, n); }, "variable in [expected]");
  if (const toml::table* t = table("uncertainty"))
    r.each_distribution(*t, "", [&](uint32_t v, const Distribution& d) { own.uncertain[v] = d; });
  p.parts.push_back(std::move(own));

  merge_layers(p);
  return p;
}

}  // namespace gs
