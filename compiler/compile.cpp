#include "compiler/compile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler/ast.h"
#include "compiler/limits.h"
#include "compiler/passes/passes.h"
#include "compiler/print.h"

namespace gs::compiler {

namespace {

std::string mib(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The passes over the checked model, after expand_templates, each with its printer for --dump-after.
struct ModelPass {
  const char* name;
  void (*run)(Model&, Diagnostics&);
  std::string (*print)(const Model&);
};
constexpr ModelPass kModelPasses[] = {
    {"declare", declare, print_declared},       {"check_forms", check_forms, print_forms},
    {"resolve_names", resolve_names, print_resolved}, {"check_units", check_units, print_typed},
    {"lower", lower, print_lowered},             {"check_definitions", check_definitions, print_definitions},
    {"check_cycles", check_cycles, print_cycles}};

constexpr bool same_names() {
  if (std::size(kDumpPasses) != std::size(kModelPasses) + 2) return false;
  for (size_t i = 0; i < std::size(kModelPasses); ++i)
    if (std::string_view(kDumpPasses[i + 2]) != kModelPasses[i].name) return false;
  return std::string_view(kDumpPasses[0]) == "parse" && std::string_view(kDumpPasses[1]) == "expand_templates";
}
static_assert(same_names(), "kDumpPasses lists the pipeline's passes in order");

}  // namespace

std::string dump_pass_names() {
  std::string s;
  for (const char* p : kDumpPasses) s += (s.empty() ? "" : ", ") + std::string(p);
  return s;
}

SourceRead read_source(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return {std::nullopt, "cannot read file: no such file", "check the path"};
    if (errno == EACCES) return {std::nullopt, "cannot read file: permission denied", "check the file's permissions"};
    return {std::nullopt, "cannot read file: " + std::string(std::strerror(errno)), "check the path"};
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {std::nullopt, "cannot read file", "check the path"};
  if (S_ISDIR(st.st_mode))
    return {std::nullopt, "is a directory, not a .gstack file", "name the directory itself to load its *.gstack files"};
  if (!S_ISREG(st.st_mode))
    return {std::nullopt, "is not a regular file (a device, FIFO or socket)", "give the path of a .gstack file"};
  if (size_t(st.st_size) > max_bytes)
    return {std::nullopt, "file is too large (" + std::to_string(st.st_size) + " bytes; the limit is " + mib(max_bytes) + ")",
            "split the model into several files"};
  std::string text;
  text.resize(size_t(st.st_size));
  size_t got = 0;
  // The file may change while it is read: stop at the size it had, and refuse it if it grew past the limit.
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return {std::nullopt, "cannot read file: " + std::string(std::strerror(errno)), "check the path"};
    if (n == 0) break;
    got += size_t(n);
  }
  text.resize(got);
  if (text.find('\0') != std::string::npos)
    return {std::nullopt, "this is a binary file (it contains NUL bytes), not a .gstack source", "give the path of a .gstack file"};
  return {std::move(text), "", ""};
}

CompileResult compile_sources(const std::vector<SourceFile>& sources, const std::string& dump_after) {
  CompileResult result;
  std::vector<AFile> files;
  for (const auto& src : sources)
    if (auto f = parse_file(src, result.diagnostics)) files.push_back(std::move(*f));
  if (dump_after == "parse") result.dump = print_files(files);
  check_parsed(files, result, dump_after);
  return result;
}

void check_parsed(std::vector<AFile>& files, CompileResult& result, const std::string& dump_after) {
  if (result.diagnostics.has_errors()) return;
  size_t declarations = 0;
  for (const auto& f : files) declarations += f.decls.size();
  if (declarations > kMaxDeclarations) {
    result.diagnostics.error({files.back().source, 1, 1}, "E-TOO-LARGE",
                             "the model has " + std::to_string(declarations) + " declarations; the limit is " +
                                 std::to_string(kMaxDeclarations),
                             "the model is far larger than any real one: check that the right files are loaded");
    return;
  }
  expand_templates(files, result.diagnostics);
  if (dump_after == "expand_templates") result.dump = print_files(files);
  if (result.diagnostics.has_errors()) return;
  // Every pass runs even after an error, so one check reports all it can; a relation with an error is
  // left alone by the passes after the one that found it.
  Model model;
  model.files = &files;
  for (const auto& pass : kModelPasses) {
    pass.run(model, result.diagnostics);
    if (dump_after == pass.name) result.dump = pass.print(model);
  }
  if (result.diagnostics.has_errors()) return;
  build_adjacency(model.img);
  result.image = std::move(model.img);
}

std::vector<std::string> expand_paths(const std::vector<std::string>& paths, Diagnostics& diags) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".gstack") found.push_back(it->path().string());
      if (ec) diags.file_error(p, "E-READ", "cannot list directory: " + ec.message());
      std::sort(found.begin(), found.end());
      if (found.empty() && !ec) diags.file_error(p, "E-READ", "directory has no .gstack files");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

// Regular files only, each and all together within the size limits; what cannot be read is a diagnostic.
std::vector<SourceFile> read_sources(const std::vector<std::string>& paths, Diagnostics& diags) {
  const std::vector<std::string> files = expand_paths(paths, diags);
  std::vector<SourceFile> sources;
  size_t total = 0;
  for (const auto& f : files) {
    SourceRead read = read_source(f, kMaxSourceBytes);
    if (!read.text) {
      diags.file_error(f, "E-READ", read.error, read.hint);
      continue;
    }
    total += read.text->size();
    if (total > kMaxTotalSourceBytes) {
      diags.file_error(f, "E-READ", "the model's files are too large together (more than " + mib(kMaxTotalSourceBytes) + ")",
                       "check that the right files are loaded");
      break;
    }
    sources.push_back(SourceFile::from_text(f, std::move(*read.text)));
  }
  return sources;
}

CompileResult compile_paths(const std::vector<std::string>& paths, const std::string& dump_after) {
  CompileResult result;
  std::vector<SourceFile> sources = read_sources(paths, result.diagnostics);
  if (result.diagnostics.has_errors()) {
    result.unreadable_input = true;
    return result;
  }
  return compile_sources(sources, dump_after);
}

}  // namespace gs::compiler
