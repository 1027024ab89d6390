// gstackc: checks .gstack model files and compiles them into a registry image.
//   gstackc check PATH... [--json | --dump-after=PASS]   (PASS: one of kDumpPasses, compiler/compile.h)
//   gstackc compile PATH... -o FILE [--json]
//   gstackc completion bash | gstackc --version
//   gstackc fmt [--check] PATH...
//   gstackc lsp            (the language server on stdin/stdout, as gstack-lsp)
// Exit status: 0 clean, 1 model errors (fmt --check: files that would change), 2 bad usage or unreadable
// input (fmt: also a file that does not parse).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>

#include "compiler/compile.h"
#include "tools/cli_extras.h"
#include "compiler/fmt.h"
#include "image/atomic_file.h"
#include "lsp/stdio.h"

namespace {

int report(const gs::compiler::CompileResult& r, bool json) {
  if (json) std::cout << r.diagnostics.render_json() << "\n";
  else std::cerr << r.diagnostics.render_text();
  if (r.unreadable_input) return 2;
  return r.diagnostics.has_errors() ? 1 : 0;
}

// Formats each file in place (atomically, only when it changes), or with --check lists the files that
// would change. A file that does not parse is reported and left alone.
int run_fmt(const std::vector<std::string>& paths, bool check) {
  gs::compiler::Diagnostics diags;
  const auto sources = gs::compiler::read_sources(paths, diags);
  bool bad_input = diags.has_errors();
  size_t changed = 0;
  for (const auto& src : sources) {
    gs::compiler::Diagnostics file_diags;
    const auto formatted = gs::compiler::format_source(src, file_diags);
    if (!formatted) {
      std::cerr << file_diags.render_text();
      bad_input = true;
      continue;
    }
    if (*formatted == src.text) continue;
    ++changed;
    if (check) {
      std::cout << src.path << "\n";
      continue;
    }
    try {
      gs::write_file_atomic(src.path, *formatted);
    } catch (const std::exception& e) {
      std::cerr << "gstackc: " << e.what() << "\n";
      return 2;
    }
    std::cerr << "formatted " << src.path << "\n";
  }
  std::cerr << diags.render_text();
  if (bad_input) return 2;
  if (check && changed) std::cerr << "gstackc: " << changed << " file" << (changed == 1 ? "" : "s") << " would be reformatted (run gstackc fmt)\n";
  return check && changed ? 1 : 0;
}

// Why `output` must not be written, if it must not: it is one of the model's own files, or an existing
// file that is not a registry image (a typo in -o must never replace a source, a preset or a document).
std::optional<std::string> output_refusal(const std::string& output, const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::error_code ec;
  gs::compiler::Diagnostics ignored;  // unreadable inputs are reported by the compile itself
  std::vector<std::string> inputs = gs::compiler::expand_paths(paths, ignored);
  inputs.insert(inputs.end(), paths.begin(), paths.end());
  for (const auto& in : inputs)
    if (fs::equivalent(output, in, ec))
      return "refusing to write the image to '" + output + "': it is an input of this compile (" + in +
             "); choose another output file, e.g. model.gsimg";
  if (fs::is_directory(output, ec)) return "cannot write the image to '" + output + "': it is a directory";
  if (fs::exists(output, ec) && !gs::starts_like_image(output))
    return "refusing to replace '" + output + "': it exists and is not a registry image; remove it first or choose another output file";
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gstackc: the gpu_stack model compiler"};
  app.require_subcommand(1);
  app.set_version_flag("--version", gs::cli::version_text("gstackc"));
  std::vector<std::string> paths;
  std::string output;
  bool json = false;

  auto* check = app.add_subcommand("check", "Parse, resolve names and check units; write nothing");
  check->add_option("paths", paths, "model files or directories")->required();
  auto* check_json = check->add_flag("--json", json, "print diagnostics as a JSON array on stdout");
  std::string dump_after;
  check->add_option("--dump-after", dump_after, "print what this pass hands on, as text on stdout (" + gs::compiler::dump_pass_names() + ")")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(gs::compiler::kDumpPasses), std::end(gs::compiler::kDumpPasses))))
      ->excludes(check_json);

  auto* compile = app.add_subcommand("compile", "Check the model and write the registry image");
  compile->add_option("paths", paths, "model files or directories")->required();
  compile->add_option("-o,--output", output, "image file to write")->required();
  compile->add_flag("--json", json, "print diagnostics as a JSON array on stdout");

  std::string shell;
  auto* completion = gs::cli::add_completion_command(app, shell);
  bool fmt_check = false;
  auto* fmt = app.add_subcommand("fmt", "Rewrite model files in the canonical layout (whitespace only; comments kept)");
  fmt->add_option("paths", paths, "model files or directories")->required();
  fmt->add_flag("--check", fmt_check, "change nothing; list the files that would change and exit 1 if any");
  auto* lsp = app.add_subcommand("lsp", "Run the language server on stdin/stdout for editors (the same server as gstack-lsp; docs/editors.md)");
  bool lsp_stdio = false;
  lsp->add_flag("--stdio", lsp_stdio, "accepted and ignored: stdio is the only transport");

  if (auto code = gs::cli::parse_or_exit(app, argc, argv)) return *code;

  if (completion->parsed()) {
    std::cout << gs::cli::bash_completion(app, "gstackc");
    return 0;
  }
  if (fmt->parsed()) return run_fmt(paths, fmt_check);
  if (lsp->parsed()) return gs::lsp::serve_stdio();
  if (compile->parsed())
    if (auto refusal = output_refusal(output, paths)) {
      std::cerr << "gstackc: " << *refusal << "\n";
      return 2;
    }
  auto result = gs::compiler::compile_paths(paths, dump_after);
  std::cout << result.dump;
  int status = report(result, json);
  if (status != 0 || !compile->parsed()) {
    if (status == 0 && !json) std::cerr << "gstackc: " << result.image->vars.size() << " variables, " << result.image->relations.size() << " relations: ok\n";
    return status;
  }
  try {
    gs::save_image_file(*result.image, output);
  } catch (const std::exception& e) {
    std::cerr << "gstackc: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
