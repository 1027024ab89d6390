// libFuzzer target for the .gstack front end. Each input is compiled as one source file after the
// model's units prelude, the way a real model file is. Beyond "no crash, hang or leak", it checks two
// properties on every input that compiles: the image survives a write/read round trip unchanged, and
// writing is deterministic.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gs::compiler;
  static const std::string prelude = gs::fuzz::read_file(gs::fuzz::source_root() + "/model/00_units.gstack");
  std::vector<SourceFile> sources;
  sources.push_back(SourceFile::from_text("00_units.gstack", prelude));
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
