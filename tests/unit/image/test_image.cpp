// The registry image format: round trip, determinism, header layout, and refusal of damaged images.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "image/image.h"
#include "sample_image.h"

using namespace gs;
using namespace gs::testing;

namespace {

constexpr size_t kHeader = 8 + 4 + 8 + 32;

std::string refusal(const std::vector<uint8_t>& bytes) {
  try {
    (void)read_image(bytes);
  } catch (const ImageError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Re-seals a payload edited in place, so the reader's structural checks are what is tested.
void reseal(std::vector<uint8_t>& bytes) {
  auto hash = sha256(bytes.data() + kHeader, bytes.size() - kHeader);
  std::memcpy(bytes.data() + 20, hash.data(), 32);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("write and read give back the same image") {
  const Image img = sample_image();
  const auto bytes = write_image(img);
  const Image back = read_image(bytes);
  CHECK(back == img);
  // Image::operator== compares the unit tables only by size, so check them field by field.
  REQUIRE(back.units.units.size() == img.units.units.size());
  for (size_t i = 0; i < img.units.units.size(); ++i) {
    CHECK(back.units.units[i].name == img.units.units[i].name);
    CHECK(back.units.units[i].scale == img.units.units[i].scale);
    CHECK(back.units.units[i].dim == img.units.units[i].dim);
    CHECK(back.units.units[i].description == img.units.units[i].description);
  }
  REQUIRE(back.units.prefixes.size() == img.units.prefixes.size());
  for (size_t i = 0; i < img.units.prefixes.size(); ++i) {
    CHECK(back.units.prefixes[i].name == img.units.prefixes[i].name);
    CHECK(back.units.prefixes[i].factor == img.units.prefixes[i].factor);
  }
  // The reader rebuilds the unit index, so lookups with prefixes work on a loaded image.
  auto kh = back.units.lookup("kh");
  REQUIRE(kh);
  CHECK(kh->scale == 3.6e6);
  CHECK(write_image(back) == bytes);
}

TEST_CASE("writing is deterministic") {
  CHECK(write_image(sample_image()) == write_image(sample_image()));
  const Image img = sample_image();
  CHECK(write_image(img) == write_image(img));
}

TEST_CASE("header: magic, version, payload length, SHA-256 of the payload") {
  const auto bytes = write_image(sample_image());
  REQUIRE(bytes.size() > kHeader);
  CHECK(std::memcmp(bytes.data(), "GSIMG\0\r\n", 8) == 0);
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= uint32_t(bytes[8 + i]) << (8 * i);
  CHECK(version == kImageFormatVersion);
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= uint64_t(bytes[12 + i]) << (8 * i);
  CHECK(length == bytes.size() - kHeader);
  auto hash = sha256(bytes.data() + kHeader, bytes.size() - kHeader);
  CHECK(std::memcmp(hash.data(), bytes.data() + 20, 32) == 0);
}

TEST_CASE("sha256 matches the standard test vector") {
  CHECK(sha256_hex("abc", 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("a truncated image is refused") {
  auto bytes = write_image(sample_image());
  auto cut = bytes;
  cut.pop_back();
  CHECK(contains(refusal(cut), "truncated"));
  cut.resize(kHeader + 10);
  CHECK(contains(refusal(cut), "truncated"));
  cut.resize(30);  // inside the header
  CHECK(contains(refusal(cut), "truncated"));
  cut.resize(0);
  CHECK(contains(refusal(cut), "not a gpu_stack registry image"));
  auto longer = bytes;
  longer.push_back(0);
  CHECK(contains(refusal(longer), "extra bytes"));
}

TEST_CASE("a flipped payload or hash byte is refused as a hash mismatch") {
  const auto bytes = write_image(sample_image());
  for (size_t pos : {kHeader, kHeader + 17, bytes.size() / 2, bytes.size() - 1, size_t(20), size_t(51)}) {
    CAPTURE(pos);
    auto bad = bytes;
    bad[pos] ^= 0x01;
    CHECK(refusal(bad) == "registry image is corrupt (SHA-256 of the payload does not match the header)");
  }
}

TEST_CASE("a fallback outside the relations, or a cycle of fallbacks, is refused") {
  Image img = sample_image();
  const int32_t far = img.relations[2].fallback;
  REQUIRE(far >= 0);
  img.relations[size_t(far)].fallback = 2;  // approx -> approx_far -> approx
  CHECK(refusal(write_image(img)) == "registry image is corrupt (fallbacks form a cycle)");
  img.relations[size_t(far)].fallback = int32_t(img.relations.size());
  CHECK(refusal(write_image(img)) == "registry image is corrupt (fallback id out of range)");
}

TEST_CASE("a wrong magic is refused") {
  auto bytes = write_image(sample_image());
  bytes[0] = 'X';
  CHECK(refusal(bytes) == "not a gpu_stack registry image (bad magic); rebuild it with `gstackc compile`");
  // Text-mode transfers turn \r\n into \n; the magic catches that too.
  auto mangled = write_image(sample_image());
  mangled.erase(mangled.begin() + 6);
  CHECK(contains(refusal(mangled), "bad magic"));
}

TEST_CASE("another format version is refused") {
  auto bytes = write_image(sample_image());
  const uint32_t other = kImageFormatVersion + 1;
  for (int i = 0; i < 4; ++i) bytes[8 + i] = uint8_t(other >> (8 * i));  // the hash covers only the payload
  CHECK(refusal(bytes) == "registry image has format version " + std::to_string(other) +
                              " but this program reads version " + std::to_string(kImageFormatVersion) +
                              "; recompile the model with this gstackc");
}

TEST_CASE("a payload length that disagrees with the file is refused") {
  auto bytes = write_image(sample_image());
  bytes[12] ^= 0x04;
  CHECK(contains(refusal(bytes), "header says"));
}

TEST_CASE("structurally bad payloads are refused even with a valid hash") {
  SUBCASE("variable id out of range") {
    Image img = sample_image();
    img.relations[0].rhs.nodes[0].index = 999;
    CHECK(refusal(write_image(img)) == "registry image is corrupt (variable id out of range)");
  }
  SUBCASE("expression stack underflow") {
    Image img = sample_image();
    img.relations[0].rhs.nodes = {var(0), op(Op::Add)};
    CHECK(contains(refusal(write_image(img)), "expression stack underflow"));
  }
  SUBCASE("expression leaves extra values") {
    Image img = sample_image();
    img.relations[0].rhs.nodes = {var(0), var(1)};
    CHECK(contains(refusal(write_image(img)), "extra values"));
  }
  SUBCASE("even piecewise operand count") {
    Image img = sample_image();
    img.relations[2].rhs.nodes = {num(0), num(1), op(Op::Piecewise, 2)};
    CHECK(contains(refusal(write_image(img)), "bad piecewise node"));
  }
  SUBCASE("unknown function") {
    Image img = sample_image();
    img.relations[0].rhs.nodes = {var(0), op(Op::Call, 1, 200)};
    CHECK(contains(refusal(write_image(img)), "bad function node"));
  }
  SUBCASE("system id out of range") {
    Image img = sample_image();
    img.vars[0].system = 7;
    CHECK(contains(refusal(write_image(img)), "system id out of range"));
  }
  SUBCASE("reference id out of range") {
    Image img = sample_image();
    img.relations[1].refs = {5};
    CHECK(contains(refusal(write_image(img)), "reference id out of range"));
  }
  SUBCASE("adjacency that does not match the tables") {
    Image img = sample_image();
    img.used_in.offsets.pop_back();
    CHECK(contains(refusal(write_image(img)), "adjacency table size"));
  }
  SUBCASE("unknown expression node") {
    auto bytes = write_image(sample_image());
    // The first expression node after the relation table's fixed fields is hard to locate by offset, so
    // build one whose Num value is unique and patch the op byte just before it.
    Image img = sample_image();
    img.relations[3].rhs.nodes = {num(12345.678)};
    bytes = write_image(img);
    double marker = 12345.678;
    uint8_t pattern[8];
    std::memcpy(pattern, &marker, 8);
    auto it = std::search(bytes.begin() + kHeader, bytes.end(), pattern, pattern + 8);
    REQUIRE(it != bytes.end());
    *(it - 1) = 0xEE;
    reseal(bytes);
    CHECK(contains(refusal(bytes), "unknown expression node"));
  }
}

TEST_CASE("every single-byte corruption of the payload is refused cleanly or read") {
  // With the hash re-sealed, each damaged byte reaches the table reader: it must throw ImageError or
  // return an image, never crash, hang or throw anything else.
  const auto bytes = write_image(sample_image());
  size_t refused = 0, read = 0;
  for (size_t pos = kHeader; pos < bytes.size(); ++pos)
    for (uint8_t value : {uint8_t(0x00), uint8_t(0xFF), uint8_t(bytes[pos] ^ 0x80), uint8_t(bytes[pos] + 1)}) {
      auto bad = bytes;
      bad[pos] = value;
      reseal(bad);
      try {
        (void)read_image(bad);
        ++read;
      } catch (const ImageError&) {
        ++refused;
      }
    }
  CHECK(refused > 0);
  CHECK(read > 0);  // strings and numbers may change without breaking the structure
}

TEST_CASE("files: atomic save, load, and clear errors for missing or damaged files") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gstack_image_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "model.gsimg").string();
  const Image img = sample_image();
  save_image_file(img, path);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  CHECK(load_image_file(path) == img);
  // Overwriting replaces the file in one step.
  save_image_file(img, path);
  CHECK(load_image_file(path) == img);

  // A damaged file names itself in the message.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x42');
  }
  try {
    (void)load_image_file(path);
    FAIL("damaged file accepted");
  } catch (const ImageError& e) {
    CHECK(std::string(e.what()).rfind(path + ": ", 0) == 0);
  }
  CHECK_THROWS_WITH_AS((void)load_image_file((dir / "missing.gsimg").string()),
                       ("cannot open registry image '" + (dir / "missing.gsimg").string() + "'").c_str(), ImageError);
  CHECK_THROWS_AS(save_image_file(img, (dir / "no" / "such" / "dir.gsimg").string()), ImageError);
  fs::remove_all(dir);
}
