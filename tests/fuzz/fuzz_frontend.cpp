// libFuzzer target for the .gstack front end. Each input is compiled as one source file after the
// model's units prelude, the way a real model file is. Beyond "no crash, hang or leak", it checks two
// properties on every input that compiles: the image survives a write/read round trip unchanged, and
// writing is deterministic.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz_frontend: cannot read %s\n", path.c_str());
    std::abort();
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string& prelude() {
  static const std::string text = [] {
    const char* env = std::getenv("GSTACK_FUZZ_PRELUDE");  // lets the script point at another checkout
    return read_file(env ? env : GSTACK_SOURCE_DIR "/model/00_units.gstack");
  }();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gs::compiler;
  std::vector<SourceFile> sources;
  sources.push_back(SourceFile::from_text("00_units.gstack", prelude()));
  sources.push_back(SourceFile::from_text("fuzz.gstack", std::string(reinterpret_cast<const char*>(data), size)));
  CompileResult result = compile_sources(sources);
  // Rendering touches every diagnostic's text, line and caret column.
  (void)result.diagnostics.render_text();
  (void)result.diagnostics.render_json();
  if (result.image) {
    const std::vector<uint8_t> bytes = gs::write_image(*result.image);
    const gs::Image back = gs::read_image(bytes);  // throws (and so crashes the fuzzer) if we wrote garbage
    if (!(back == *result.image) || gs::write_image(back) != bytes) std::abort();
  }
  return 0;
}
