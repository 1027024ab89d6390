// libFuzzer target for the registry image loader. A random byte string almost never carries a valid
// SHA-256 of its own payload, so an input without the image magic is taken as a payload and sealed with
// a correct header first: that way the fuzzer reaches the table readers and the id checks behind the
// hash. A loaded image must also build a Registry and its variable graph without crashing.
#include <cstdint>
#include <cstring>
#include <vector>

#include "image/image.h"
#include "runtime/graph.h"
#include "runtime/registry.h"

namespace {

std::vector<uint8_t> sealed(const uint8_t* data, size_t size) {
  std::vector<uint8_t> out{'G', 'S', 'I', 'M', 'G', '\0', '\r', '\n'};
  auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  put(gs::kImageFormatVersion, 4);
  put(size, 8);
  const auto hash = gs::sha256(data, size);
  out.insert(out.end(), hash.begin(), hash.end());
  out.insert(out.end(), data, data + size);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool whole = size >= 8 && std::memcmp(data, "GSIMG\0\r\n", 8) == 0;
  const std::vector<uint8_t> bytes = whole ? std::vector<uint8_t>(data, data + size) : sealed(data, size);
  try {
    gs::Registry reg(gs::read_image(bytes));
    gs::Graph graph(reg);
    (void)graph.cycles();
    (void)graph.topological_order();
  } catch (const gs::ImageError&) {
  }
  return 0;
}
