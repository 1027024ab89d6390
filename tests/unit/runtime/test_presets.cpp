#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "runtime/presets.h"
#include "runtime_support.h"

using namespace gs;
using gs::testing::id;
using gs::testing::mini;

namespace {

// A scratch directory of preset files for one test.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name) : dir(std::filesystem::path(GSTACK_BINARY_DIR) / "tests" / "presets" / name) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void write(const std::string& file, const std::string& text) const { std::ofstream(dir / file) << text; }
  PresetLibrary library() const { return PresetLibrary(mini(), dir.string()); }
};

}  // namespace

TEST_CASE("presets: values carry units and are converted to base units") {
  const Registry& reg = mini();
  CHECK(parse_quantity(reg, id("econ.power.price_kwh"), "0.36 USD/(kW*h)") == doctest::Approx(1e-7).epsilon(1e-15));
  CHECK(parse_quantity(reg, id("econ.power.price_kwh"), "0.36") == doctest::Approx(1e-7).epsilon(1e-15));  // display unit
  CHECK(parse_quantity(reg, id("gpu.peak_flops"), "989 TFLOP/s") == 989e12);
  CHECK(parse_quantity(reg, id("training.t_step"), "25 ms") == doctest::Approx(0.025));
  CHECK(parse_quantity(reg, id("cluster.node.ram_bytes"), "2 GiB") == 2.0 * 1073741824 * 8);
  CHECK_THROWS_WITH_AS(parse_quantity(reg, id("gpu.peak_flops"), "989 token/s"),
                       doctest::Contains("given in token/s"), PresetError);
  CHECK_THROWS_WITH_AS(parse_quantity(reg, id("gpu.peak_flops"), "989 token/s"),
                       doctest::Contains("measured in FLOP/s"), PresetError);
  CHECK_THROWS_WITH_AS(parse_quantity(reg, id("gpu.peak_flops"), "989 TFLOPZ/s"), doctest::Contains("bad unit"), PresetError);
  CHECK_THROWS_WITH_AS(parse_quantity(reg, id("gpu.peak_flops"), "fast"), doctest::Contains("not a number"), PresetError);
}

TEST_CASE("presets: command-line assignments and selectors") {
  const Registry& reg = mini();
  auto [v, x] = parse_assignment(reg, "gpu.power.total = 0.5 kW");
  CHECK(v == id("gpu.power.total"));
  CHECK(x == 500.0);
  CHECK(parse_assignment(reg, "econ.job.capex_rate=0").second == 0.0);
  CHECK_THROWS_WITH_AS(parse_assignment(reg, "gpu.power.totl=1"), doctest::Contains("did you mean 'gpu.power.total'"), PresetError);
  CHECK_THROWS_WITH_AS(parse_assignment(reg, "gpu.power.total"), doctest::Contains("NAME=VALUE"), PresetError);
  CHECK(parse_selector(reg, "training.flops_per_step=moe").second == "moe");
  CHECK_THROWS_WITH_AS(parse_selector(reg, "training.flops_per_step=mo"), doctest::Contains("did you mean 'moe'"), PresetError);
  CHECK_THROWS_WITH_AS(parse_selector(reg, "lab.a=dense"), doctest::Contains("no variant relations"), PresetError);
}

TEST_CASE("presets: the shipped fixture presets load with their layers, targets and expectations") {
  Preset p = gs::testing::source_preset(mini(), "dense_training_cost_fixture");
  CHECK(p.name == "dense_training_cost_fixture");
  CHECK(p.layers == std::vector<std::string>{"dense_variant_selector", "dense_training_cost_fixture"});
  CHECK(p.assignments.size() == 30);
  CHECK(p.variants.size() == 2);
  CHECK(p.variants.at(id("training.flops_per_step")) == "dense");
  CHECK(p.assignments.at(id("econ.power.price_kwh_peak")) == doctest::Approx(1e-7).epsilon(1e-15));
  CHECK(p.assignments.at(id("training.t_exposed_comm")) == doctest::Approx(0.025).epsilon(1e-15));
  REQUIRE(p.targets.size() == 7);
  CHECK(p.targets.front().first == "step_time");  // file order, not key order
  CHECK(p.targets.back().first == "cost_per_token");
  CHECK(p.expected.size() == 7);
  CHECK_FALSE(p.source.empty());
  CHECK(p.notes.size() == 2);

  Preset rack = gs::testing::source_preset(mini(), "demo_rack");
  CHECK(rack.assignments.at(id("gpu.peak_flops")) == 15e15);
  CHECK(rack.expected.at(id("cluster.rack.peak_flops")) == 1.08e18);
}

TEST_CASE("presets: later layers win and cycles of extends are refused") {
  Scratch s("layers");
  s.write("base.toml", "[assign]\n\"cluster.rack.n_nodes\" = 9\n\"gpu.peak_flops\" = \"1 PFLOP/s\"\n[targets]\nrack = \"cluster.rack.peak_flops\"\n");
  s.write("more.toml", "extends = \"base\"\nnotes = [\"more\"]\n[assign]\n\"cluster.rack.n_nodes\" = 18\n");
  s.write("top.toml", "extends = [\"more\"]\n[assign]\ncluster.node.n_gpus = 8\n");
  Preset p = s.library().load("top");
  CHECK(p.layers == std::vector<std::string>{"base", "more", "top"});
  CHECK(p.assignments.at(id("cluster.rack.n_nodes")) == 18);
  CHECK(p.assignments.at(id("cluster.node.n_gpus")) == 8);  // bare dotted keys work as nested tables
  CHECK(p.targets.size() == 1);
  CHECK(p.notes == std::vector<std::string>{"more"});
  CHECK(s.library().names() == std::vector<std::string>{"base", "more", "top"});

  s.write("a.toml", "extends = \"b\"\n");
  s.write("b.toml", "extends = \"a\"\n");
  CHECK_THROWS_WITH_AS(s.library().load("a"), doctest::Contains("cycle"), PresetError);
  // Loading by path works too.
  CHECK(s.library().load((s.dir / "base.toml").string()).name == "base");
}

TEST_CASE("presets: bad input names the file and line") {
  Scratch s("bad");
  PresetLibrary lib = s.library();
  CHECK_THROWS_WITH_AS(lib.parse("name = \"x\"\n[assign\n", "bad.toml"), "bad.toml:2:8: malformed TOML: Error while parsing table header: expected ']', saw '\\n'; "
                       "hint: check the TOML syntax at that position", PresetError);
  CHECK_THROWS_WITH_AS(lib.parse("\n[assign]\n\"gpu.peak_flop\" = 1\n", "t.toml"),
                       doctest::Contains("t.toml:3: unknown variable in [assign] 'gpu.peak_flop'; did you mean 'gpu.peak_flops'"), PresetError);
  CHECK_THROWS_WITH_AS(lib.parse("[assign]\n\"gpu.peak_flops\" = \"3 W\"\n", "t.toml"),
                       doctest::Contains("t.toml:2: the value of 'gpu.peak_flops' is given in W"), PresetError);
  CHECK_THROWS_WITH_AS(lib.parse("[variants]\n\"training.flops_per_step\" = \"dens\"\n", "t.toml"),
                       doctest::Contains("did you mean 'dense'"), PresetError);
  CHECK_THROWS_WITH_AS(lib.parse("asign = 1\n", "t.toml"), doctest::Contains("unknown preset key 'asign'; did you mean 'assign'"), PresetError);
  CHECK_THROWS_WITH_AS(lib.parse("[targets]\nx = \"no.such\"\n", "t.toml"), doctest::Contains("unknown target variable"), PresetError);
  CHECK_THROWS_WITH_AS(lib.load("dense_training_cost_fixtur"), doctest::Contains("unknown preset"), PresetError);
  CHECK_THROWS_WITH_AS(lib.parse("[assign]\n\"gpu.peak_flops\" = true\n", "t.toml"), doctest::Contains("must be a number"), PresetError);
}

TEST_CASE("presets: one variable given twice in a table (quoted key and table form) is refused, naming both places") {
  Scratch s("twice");
  s.write("twice.toml", "[assign]\n\"gpu.power.total\" = 100\n[assign.gpu.power]\ntotal = 200\n");
  CHECK_THROWS_WITH_AS(s.library().load("twice"), doctest::Contains("'gpu.power.total' is given twice"), PresetError);
  CHECK_THROWS_WITH_AS(s.library().load("twice"), doctest::Contains("twice.toml:2:1 and at "), PresetError);
  CHECK_THROWS_WITH_AS(s.library().load("twice"), doctest::Contains("twice.toml:4:1"), PresetError);
  s.write("twice_unc.toml", "[assign]\n\"gpu.power.total\" = 100\n[uncertainty]\n\"gpu.power.total\" = [1, 2]\n"
                            "[uncertainty.gpu.power]\ntotal = [3, 4]\n");
  CHECK_THROWS_WITH_AS(s.library().load("twice_unc"), doctest::Contains("given twice as a variable in [uncertainty]"), PresetError);
  // Different variables in the two spellings are fine.
  s.write("once.toml", "[assign]\n\"gpu.power.total\" = 100\n[assign.econ.job]\ncapex_rate = 2\n");
  CHECK(s.library().load("once").assignments.size() == 2);
}

TEST_CASE("presets: a library parses each file once and re-reads it only when it or a file it extends changes") {
  Scratch s("cache");
  s.write("base.toml", "[assign]\n\"cluster.rack.n_nodes\" = 9\n");
  s.write("top.toml", "extends = \"base\"\n[assign]\ncluster.node.n_gpus = 8\n");
  PresetLibrary lib = s.library();
  const Preset first = lib.load("top");
  CHECK(lib.files_parsed() == 2);
  const PresetLibrary copy = lib;  // copies share the cache
  for (int i = 0; i < 5; ++i) {
    const Preset again = copy.load("top");
    CHECK(again.assignments == first.assignments);
    CHECK(again.layers == first.layers);
    CHECK(again.path == first.path);
  }
  CHECK(lib.load("base").assignments.at(id("cluster.rack.n_nodes")) == 9);
  CHECK(lib.files_parsed() == 2);
  CHECK(lib.compose({"base", "top"}).assignments.size() == 2);
  CHECK(lib.files_parsed() == 2);
  // load_shared hands out the cached preset itself (no copy): the same object each time, equal to load's.
  const auto shared = copy.load_shared("top");
  CHECK(shared == lib.load_shared("top"));
  CHECK(shared->assignments == first.assignments);
  CHECK(shared->layers == first.layers);
  CHECK(lib.files_parsed() == 2);

  // A changed file that another extends: both are read again (a different size, so the stamp differs
  // even where the clock is coarse).
  s.write("base.toml", "[assign]\n\"cluster.rack.n_nodes\" = 18\n");
  CHECK(lib.load("top").assignments.at(id("cluster.rack.n_nodes")) == 18);
  CHECK(lib.files_parsed() == 4);
  CHECK(lib.load_shared("top") != shared);  // a shared preset stays as it was read; a reload is a new one
  CHECK(shared->assignments.at(id("cluster.rack.n_nodes")) == 9);
  // A file that fails is never cached: the error comes back every time.
  s.write("base.toml", "[assign]\n\"cluster.rack.n_nodez\" = 18\n");
  CHECK_THROWS_WITH_AS(lib.load("top"), doctest::Contains("n_nodez"), PresetError);
  CHECK_THROWS_WITH_AS(lib.load("top"), doctest::Contains("n_nodez"), PresetError);
  // A separate library starts with its own cache.
  CHECK(s.library().files_parsed() == 0);
}

TEST_CASE("presets: a file replaced by a rename is read again, even with the same size and modification time") {
  Scratch s("cache_rename");
  s.write("base.toml", "[assign]\n\"cluster.rack.n_nodes\" = 9\n");
  s.write("top.toml", "extends = \"base\"\n[assign]\ncluster.node.n_gpus = 8\n");
  PresetLibrary lib = s.library();
  CHECK(lib.load("top").assignments.at(id("cluster.rack.n_nodes")) == 9);
  CHECK(lib.files_parsed() == 2);
  // Same length, same time stamp, another file (inode) behind the name: an editor's atomic save.
  const auto base = s.dir / "base.toml";
  const auto when = std::filesystem::last_write_time(base);
  s.write("next.toml", "[assign]\n\"cluster.rack.n_nodes\" = 7\n");
  std::filesystem::last_write_time(s.dir / "next.toml", when);
  std::filesystem::rename(s.dir / "next.toml", base);
  CHECK(lib.load("top").assignments.at(id("cluster.rack.n_nodes")) == 7);
  CHECK(lib.files_parsed() == 4);
}
