// gstackc: checks .gstack model files and compiles them into a registry image.
//   gstackc check PATH... [--json]
//   gstackc compile PATH... -o FILE [--json]
// Exit status: 0 clean, 1 model errors, 2 bad usage or unreadable input.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>

#include "compiler/compile.h"

namespace {

int report(const gs::compiler::CompileResult& r, bool json) {
  if (json) std::cout << r.diagnostics.render_json() << "\n";
  else std::cerr << r.diagnostics.render_text();
  if (r.unreadable_input) return 2;
  return r.diagnostics.has_errors() ? 1 : 0;
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
  std::vector<std::string> paths;
  std::string output;
  bool json = false;

  auto* check = app.add_subcommand("check", "Parse, resolve names and check units; write nothing");
  check->add_option("paths", paths, "model files or directories")->required();
  check->add_flag("--json", json, "print diagnostics as a JSON array on stdout");

  auto* compile = app.add_subcommand("compile", "Check the model and write the registry image");
  compile->add_option("paths", paths, "model files or directories")->required();
  compile->add_option("-o,--output", output, "image file to write")->required();
  compile->add_flag("--json", json, "print diagnostics as a JSON array on stdout");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }

  if (compile->parsed())
    if (auto refusal = output_refusal(output, paths)) {
      std::cerr << "gstackc: " << *refusal << "\n";
      return 2;
    }
  auto result = gs::compiler::compile_paths(paths);
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
