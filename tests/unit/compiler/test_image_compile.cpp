// Images of compiled models: deterministic bytes and a lossless round trip.
#include <doctest/doctest.h>

#include "compiler/compile.h"
#include "helpers.h"

using namespace gs;
using namespace gs::testing;

TEST_CASE("compiling model/ twice gives byte-identical images") {
  auto first = compiler::compile_paths({GSTACK_SOURCE_DIR "/model"});
  auto second = compiler::compile_paths({GSTACK_SOURCE_DIR "/model"});
  INFO(first.diagnostics.render_text());
  REQUIRE(first.image);
  REQUIRE(second.image);
  CHECK(write_image(*first.image) == write_image(*second.image));
}

TEST_CASE("a compiled model survives the round trip") {
  auto r = compiler::compile_paths({GSTACK_SOURCE_DIR "/model"});
  REQUIRE(r.image);
  const auto bytes = write_image(*r.image);
  const Image back = read_image(bytes);
  CHECK(back == *r.image);
  CHECK(write_image(back) == bytes);
  // Source hashes let the runtime tell a stale image from a fresh one.
  REQUIRE(back.files.size() == back.file_hashes.size());
  CHECK(back.file_hashes[0] == sha256_hex(read_text(back.files[0]).data(), read_text(back.files[0]).size()));
}

TEST_CASE("a model using every construct round-trips and stays deterministic") {
  const std::string model =
      "system t\nuse physics\n"
      "ref r \"R\" kind memo year 2024 at \"p. 3\"\n"
      "var t.x : kW \"x\" ref r assume positive, range(1, 2)\n"
      "var t.y : J \"y\"\nvar t.z : 1 \"z\"\nvar t.time : h \"time\"\nvar t.rate : 1/h \"rate\"\n"
      "eq e: t.y = t.x * 1 [h] + physics.boltzmann * 300 [K]\n"
      "variant v [a]: t.z = exp(-t.x / 1 [kW])\n"
      "approx p when t.x > 1 [W]: t.time = piecewise { 1 [h] if t.z < 0.5; 2 [h] otherwise }\n"
      "constraint c: t.x <= 5 [MW]\n"
      "ode o: derivative(t.y, t.time) = t.x\n"
      "stochastic s: t.rate ~ gamma(2, t.z) mean 1 / t.time\n"
      "iterate i: t.z = (k + 1/k)/2 over k from 1 times 4\n";
  Image a = compile_ok(model, true);
  Image b = compile_ok(model, true);
  const auto bytes = write_image(a);
  CHECK(bytes == write_image(b));
  CHECK(read_image(bytes) == a);
}
