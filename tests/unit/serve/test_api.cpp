// The server's JSON API without HTTP: each endpoint answers what the CLI's --json answers, and every bad
// request gets a 4xx with a message and a hint.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <mutex>
#include <sstream>
#include <thread>

#include "runtime/api/session.h"
#include "runtime/serve/api.h"
#include "runtime/serve/resolve_cache.h"
#include "runtime/uq/commands.h"
#include "tests/unit/support/shipped_model.h"
#include "tests/unit/support/source_workspace.h"

namespace {

using json = nlohmann::json;
using gs::testing::shipped_model;
using gs::testing::source_workspace;

const gs::serve::Api& api() {
  static gs::serve::Api a(shipped_model(), source_workspace());
  return a;
}

json ok(const std::string& endpoint, const json& body) {
  const gs::serve::Reply r = api().post(endpoint, body.dump());
  INFO(endpoint << " " << body.dump() << " -> " << r.body);
  REQUIRE(r.status == 200);
  return json::parse(r.body);
}

// A refused request: its status, and the error and hint it carries.
json refused(const std::string& endpoint, const std::string& body, int status = 400) {
  const gs::serve::Reply r = api().post(endpoint, body);
  INFO(endpoint << " " << body << " -> " << r.body);
  CHECK(r.status == status);
  json j = json::parse(r.body);
  CHECK(j["error"].get<std::string>().size() > 5);
  CHECK(j["hint"].get<std::string>().size() > 5);
  return j;
}

}  // namespace

TEST_CASE("resolve answers the same number as the session library the CLI uses") {
  const json j = ok("resolve", {{"target", "econ.cost.per_token"}, {"preset", "default"}, {"assign", {"econ.gpu.capex=30 kUSD"}}});
  const gs::Registry& reg = shipped_model();
  gs::PresetLibrary lib(reg, std::string(GSTACK_SOURCE_DIR) + "/presets");
  gs::api::ScenarioInputs in;
  in.presets = {"default"}, in.assigns = {"econ.gpu.capex=30 kUSD"};
  const auto answer = gs::api::resolve(reg, gs::api::build_scenario(reg, lib, in), *reg.find_var("econ.cost.per_token"), {}, 0);
  REQUIRE(answer.resolution.number);
  CHECK(j["complete"] == true);
  CHECK(j["value"].get<double>() == doctest::Approx(*answer.resolution.number).epsilon(1e-15));
  CHECK(j["steps"].size() > 10);  // the trace comes with the answer
  CHECK_FALSE(j.contains("interval"));
  // The assignment moves the answer: the default preset's GPU price is not 30 kUSD.
  const json base = ok("resolve", {{"target", "econ.cost.per_token"}, {"preset", "default"}});
  CHECK(std::abs(base["value"].get<double>() / j["value"].get<double>() - 1) > 1e-3);
}

TEST_CASE("resolve gives the interval the CLI gives when asked") {
  const json j = ok("resolve", {{"target", "econ.cost.per_token"}, {"preset", {"default"}}, {"interval", true}});
  REQUIRE(j.contains("interval"));
  CHECK(j["interval"]["samples"] == gs::api::kResolveIntervalSamples);
  CHECK(j["interval"]["p5"].get<double>() < j["value"].get<double>() * 1.5);
  CHECK(j["interval"]["p5"].get<double>() < j["interval"]["p95"].get<double>());
}

TEST_CASE("sweep returns every point, within the server's cap") {
  const json j = ok("sweep", {{"targets", "econ.cost.per_token"}, {"preset", "default"}, {"vary", {"econ.gpu.capex=25..40:4 kUSD", "par.dp=32,64"}}});
  CHECK(j["points"] == 8);
  REQUIRE(j["axes"].size() == 2);
  CHECK(j["axes"][0]["values"][0].get<double>() == doctest::Approx(25000));
  CHECK(j["axes"][1]["values"][1].get<double>() == doctest::Approx(64));
  REQUIRE(j["values"][0].size() == 8);
  // Dearer GPUs cost more per token at the same data-parallel width.
  CHECK(j["values"][0][6].get<double>() > j["values"][0][0].get<double>());
  const json big = refused("sweep", json{{"targets", "econ.cost.per_token"}, {"preset", "default"}, {"vary", {"econ.gpu.capex=25..40:200", "par.dp=1..64:100"}}}.dump());
  CHECK(big["error"].get<std::string>().find("10000 points") != std::string::npos);
  // One huge axis is refused before its values are allocated (100 million would be 800 MB).
  const json huge = refused("sweep", R"({"targets": "econ.cost.per_token", "preset": "default", "vary": "econ.gpu.capex=1..2:100000000"})");
  CHECK(huge["error"].get<std::string>().find("more than a sweep can hold (10000)") != std::string::npos);
}

TEST_CASE("uncertainty and sensitivity answer with the CLI's JSON") {
  const json u = ok("uncertainty", {{"target", "econ.cost.per_token"}, {"preset", "default"}, {"samples", 5000}, {"seed", 3}});
  CHECK(u["samples"] == 5000);
  CHECK(u["p5"].get<double>() < u["median"].get<double>());
  CHECK(u["median"].get<double>() < u["p95"].get<double>());
  // The same library call with the same seed gives the same interval.
  const gs::Registry& reg = shipped_model();
  gs::PresetLibrary lib(reg, std::string(GSTACK_SOURCE_DIR) + "/presets");
  gs::api::ScenarioInputs in;
  in.presets = {"default"};
  const auto r = gs::run_uncertainty(reg, gs::api::build_scenario(reg, lib, in), *reg.find_var("econ.cost.per_token"), 5000, 3, 1);
  CHECK(u["p95"].get<double>() == doctest::Approx(r.summary.p95).epsilon(1e-15));
  const json s = ok("sensitivity", {{"target", "econ.cost.per_token"}, {"preset", "default"}, {"samples", 500}});
  CHECK(s["inputs"].size() >= 1);
  refused("uncertainty", R"({"target": "econ.cost.per_token", "preset": "default", "samples": 300000})");
  refused("sensitivity", R"({"target": "econ.cost.per_token", "preset": "default", "samples": 0})");
}

TEST_CASE("bad requests get 4xx with the CLI's message and a hint") {
  CHECK(refused("resolve", "{not json")["error"] == "the request body is not JSON");
  refused("resolve", "[1, 2]");
  refused("resolve", R"({"preset": "default"})");  // no target
  const json typo = refused("resolve", R"({"target": "econ.cost.per_tokn", "preset": "default"})");
  CHECK(typo["error"] == "unknown target variable 'econ.cost.per_tokn'");
  CHECK(typo["hint"].get<std::string>().find("econ.cost.per_token") != std::string::npos);
  const json field = refused("resolve", R"({"target": "econ.cost.per_token", "presets": "default"})");
  CHECK(field["error"].get<std::string>().find("unknown field 'presets'") == 0);
  CHECK(refused("resolve", R"({"target": "econ.cost.per_token", "preset": "defualt"})")["hint"].get<std::string>().find("default") != std::string::npos);
  refused("resolve", R"({"target": "econ.cost.per_token", "assign": ["econ.gpu.capex=thirty"]})");
  refused("resolve", R"({"target": "econ.cost.per_token", "trace": "yes"})");
  refused("resolve", R"({"target": 7})");
  refused("nope", "{}", 404);
}

TEST_CASE("requests name presets, never files") {
  for (const char* name : {"../presets/default", "/etc/passwd", "default.toml", "hardware/../default", "./default", "a\\b", ""}) {
    const json j = refused("resolve", json{{"target", "econ.cost.per_token"}, {"preset", name}}.dump());
    CHECK(j["error"].get<std::string>().find("preset") != std::string::npos);
  }
  refused("resolve", R"({"target": "econ.cost.per_token", "preset": "default", "workload": "../default"})");
  refused("simulate", R"({"scenario": "../default"})");
  // A shipped preset in a sub-folder is a name.
  ok("resolve", {{"target", "econ.cost.per_token"}, {"preset", {"default", "workload/llama3_8b"}}});
  ok("resolve", {{"target", "econ.cost.per_token"}, {"preset", "default"}, {"workload", "llama3-8b"}});
}

TEST_CASE("health lists the endpoints and the caps") {
  const gs::serve::Reply r = api().health();
  CHECK(r.status == 200);
  const json j = json::parse(r.body);
  CHECK(j["endpoints"].size() == gs::serve::Api::endpoints().size());
  CHECK(j["limits"]["sweep_points"] == 10000);
}

namespace {

// Every number in `a` within `rel` of the same place in `b`; everything else equal.
void check_close(const json& a, const json& b, const std::string& where, double rel = 1e-12) {
  INFO(where);
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    CHECK(std::abs(x - y) <= rel * std::max(std::abs(x), std::abs(y)));
    return;
  }
  REQUIRE(a.type() == b.type());
  if (a.is_object()) {
    REQUIRE(a.size() == b.size());
    for (auto it = a.begin(); it != a.end(); ++it) {
      REQUIRE(b.contains(it.key()));
      check_close(*it, b[it.key()], where + "." + it.key(), rel);
    }
  } else if (a.is_array()) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) check_close(a[i], b[i], where + "[" + std::to_string(i) + "]", rel);
  } else {
    CHECK(a == b);
  }
}

// The CLI's compact `resolve --json` document for `assign` under the default preset.
json cli_compact(const std::string& target, const std::vector<std::string>& assign) {
  const gs::Registry& reg = shipped_model();
  gs::PresetLibrary lib(reg, std::string(GSTACK_SOURCE_DIR) + "/presets");
  gs::api::ScenarioInputs in;
  in.presets = {"default"}, in.assigns = assign;
  const auto answer = gs::api::resolve(reg, gs::api::build_scenario(reg, lib, in), *reg.find_var(target), {}, 0);
  return json::parse(gs::api::resolve_json(reg, answer, false));
}

}  // namespace

TEST_CASE("resolve without a trace answers from the compiled cone what the resolver answers") {
  // Each question the site asks, at GPU prices that move it, including one that violates the price's
  // domain (the check must be re-decided at the request's values, not copied from the first request).
  const gs::Registry& reg = shipped_model();
  const auto questions = reg.exports(gs::kExportQuestion);
  REQUIRE(questions.size() >= 3);
  for (const auto& q : questions) {
    const std::string target = reg.var(q.var).name;
    for (const std::string price : {"30 kUSD", "41.5 kUSD", "1 USD", "-5 kUSD"}) {
      const std::vector<std::string> assign = {"econ.gpu.capex=" + price};
      const json fast = ok("resolve", {{"target", target}, {"preset", "default"}, {"assign", assign}, {"trace", false}});
      check_close(fast, cli_compact(target, assign), target + " at " + price);
    }
  }
  const json bad = ok("resolve", {{"target", "econ.cost.per_token"}, {"preset", "default"}, {"assign", {"econ.gpu.capex=-5 kUSD"}}, {"trace", false}});
  CHECK(bad["violations"].get<int>() >= 1);
}

TEST_CASE("resolve's fast path answers many threads at once, each its own scenario") {
  std::vector<std::thread> threads;
  std::vector<json> answers(16);
  for (size_t i = 0; i < answers.size(); ++i)
    threads.emplace_back([&, i] {
      const std::string body = json{{"target", "econ.cost.per_token"}, {"preset", "default"}, {"trace", false},
                                    {"assign", {"econ.gpu.capex=" + std::to_string(20 + i) + " kUSD"}}}.dump();
      answers[i] = json::parse(api().post("resolve", body).body);
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < answers.size(); ++i)
    check_close(answers[i], cli_compact("econ.cost.per_token", {"econ.gpu.capex=" + std::to_string(20 + i) + " kUSD"}), "thread " + std::to_string(i));
}

TEST_CASE("the resolve cache keeps at most its capacity of scenario shapes") {
  const gs::Registry& reg = shipped_model();
  gs::PresetLibrary lib(reg, std::string(GSTACK_SOURCE_DIR) + "/presets");
  gs::serve::ResolveCache cache(reg, 2);
  std::mutex model;
  gs::api::ScenarioInputs in;
  in.presets = {"default"};
  const gs::ScenarioPoint s = gs::api::build_scenario(reg, lib, in);
  const uint32_t target = *reg.find_var("econ.cost.per_token");
  const auto questions = reg.exports(gs::kExportQuestion);
  for (const auto& q : questions) CHECK(cache.compact(s, q.var, model).has_value());
  CHECK(cache.size() == std::min<size_t>(2, questions.size()));
  const auto again = cache.compact(s, target, model);
  REQUIRE(again);
  check_close(json::parse(*again), cli_compact("econ.cost.per_token", {}), "after eviction");
}
