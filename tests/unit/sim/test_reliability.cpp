// Sourced reliability: per-class detection and diagnosis, correlated (domain) failures, the comparison with
// published figures, the timeline, and the model-variable bindings read from presets/sim/model-inputs.toml.
#include <doctest/doctest.h>

#include <string>

#include "runtime/sim/engine.h"
#include "runtime/sim/failures.h"
#include "runtime/sim/inputs.h"
#include "runtime/sim/published.h"
#include "runtime/sim/timeline.h"
#include "tests/unit/sim/support.h"

using namespace gs::sim;

namespace {

// The small scenario with its software class observed after `detect` (and no other change).
std::string with_detection(const std::string& detect) {
  std::string s = testing::small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"");
  std::string key = "observed = { count = 10, window = \"10 day\", units = 1, source = \"assumption\", note = \"test\" }";
  s.insert(s.find(key) + key.size(), "\ndetection = { value = \"" + detect + "\", source = \"assumption\", note = \"test\" }");
  return s;
}

}  // namespace

TEST_CASE("a class's own detection time replaces the job's default, interruption by interruption") {
  SimOptions o;
  o.seed = 11;
  SimResult base = simulate(testing::parse(with_detection("30 s")), o);  // equal to the default: same run
  SimResult plain = simulate(testing::parse(testing::small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"")), o);
  CHECK(base.jobs[0].time.detection == plain.jobs[0].time.detection);
  SimResult slow = simulate(testing::parse(with_detection("10 min")), o);
  const auto& j = slow.jobs[0];
  uint64_t software = j.interruptions.count("software") ? j.interruptions.at("software") : 0;
  uint64_t gpu = j.interruptions.count("gpu.fault") ? j.interruptions.at("gpu.fault") : 0;
  REQUIRE(software > 0);
  // Detection time = software interruptions x 600 s + GPU interruptions x 30 s, exactly (integer ns, ceil).
  CHECK(j.time.detection == int64_t(software) * 600'000'000'000 + int64_t(gpu) * 30'000'000'000);
  CHECK(slow.work_conserved());
  CHECK(slow.time_partitioned());
}

TEST_CASE("diagnosis adds to detection before the policy sees the failure") {
  std::string s = with_detection("1 min");
  std::string key = "detection = { value = \"1 min\", source = \"assumption\", note = \"test\" }";
  s.insert(s.find(key) + key.size(), "\ndiagnosis = { value = \"4 min\", source = \"assumption\", note = \"test\" }");
  SimOptions o;
  o.seed = 11;
  SimResult r = simulate(testing::parse(s), o);
  const auto& j = r.jobs[0];
  uint64_t software = j.interruptions.at("software");
  uint64_t gpu = j.interruptions.count("gpu.fault") ? j.interruptions.at("gpu.fault") : 0;
  CHECK(j.time.detection == int64_t(software) * 300'000'000'000 + int64_t(gpu) * 30'000'000'000);
}

TEST_CASE("a domain failure takes all its nodes at once and interrupts a job once") {
  // One rack of 4 nodes fails about once a day across the 9 racks of the 36-node site.
  std::string extra = R"TOML(
[[failure]]
id = "rack.pdu"
category = "Facility"
unit = "domain"
domain_nodes = 4
observed = { count = 9, window = "1 day", units = 9, source = "assumption", note = "test" }
repair = { median = "2 h", sigma = 0.0, source = "assumption", note = "test" }
)TOML";
  Scenario sc = testing::parse(testing::small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"", extra));
  CHECK(domain_count(4, {36}) == 9);
  CHECK(domain_count(4, {38}) == 10);  // the last domain is short
  // The job spans 32 nodes = 8 domains: its expected rate adds 8 x (1 per day).
  double base = job_failure_rate_per_s({sc.failures[0], sc.failures[1]}, 256, 32);
  CHECK(job_failure_rate_per_s(sc.failures, 256, 32) - base == doctest::Approx(8.0 / 86400).epsilon(1e-12));
  SimOptions o;
  o.seed = 5;
  o.timeline = true;
  SimResult r = simulate(sc, o);
  uint64_t racks = r.fleet_failures.count("rack.pdu") ? r.fleet_failures.at("rack.pdu") : 0;
  REQUIRE(racks > 0);
  // Every rack failure that found its nodes up takes them all: failure records come in groups of up to 4 at one instant.
  size_t rack_nodes = 0;
  for (const auto& e : r.timeline) rack_nodes += e.kind == "failure" && e.subject == "rack.pdu";
  CHECK(rack_nodes >= racks);
  CHECK(rack_nodes <= 4 * racks);
  uint64_t interrupted = r.jobs[0].interruptions.count("rack.pdu") ? r.jobs[0].interruptions.at("rack.pdu") : 0;
  CHECK(interrupted <= racks);  // never more than one interruption per rack failure
  CHECK(r.work_conserved());
  CHECK(r.time_partitioned());
}

TEST_CASE("published figures are reported next to the run, never used as inputs") {
  std::string extra = R"TOML(
[[published]]
id = "paper.ettr"
metric = "ettr"
relation = "gt"
value = 0.5
source = "paper"
[[published]]
id = "paper.count"
metric = "unexpected_interruptions"
relation = "about"
value = 1000
tolerance = 0.1
source = "paper"
)TOML";
  std::string text = testing::small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"");
  // The source is declared with a dotted key before the scenario's first table.
  text = "sources.paper = { citation = \"a test source\", url = \"\" }\n" + text;
  Scenario sc = testing::parse(text + extra);
  SimOptions o;
  o.seed = 3;
  SimResult r = simulate(sc, o);
  REQUIRE(r.published.figures.size() == 2);
  const auto& ettr = r.published.figures[0];
  CHECK(ettr.simulated == doctest::Approx(r.jobs[0].ettr()).epsilon(1e-12));
  CHECK(ettr.consistent == (ettr.simulated > 0.5));
  const auto& count = r.published.figures[1];
  CHECK_FALSE(count.consistent);  // a couple of dozen interruptions are not about 1000
  // The cause rows: the software class's source rate (1 per day) over the 2-day run is 2 expected.
  bool found = false;
  for (const auto& c : r.published.causes)
    if (c.cause == "software") {
      found = true;
      CHECK(c.observed_count == 10);
      CHECK(c.expected == doctest::Approx(2.0).epsilon(1e-9));
    }
  CHECK(found);
  // The comparison does not change the run: without it the same seed gives the same numbers.
  SimResult plain = simulate(testing::parse(text), o);
  CHECK(plain.jobs[0].work.committed == r.jobs[0].work.committed);
  CHECK(plain.published.empty());
  CHECK_THROWS_WITH(testing::parse(text + "[[published]]\nid = \"x\"\nmetric = \"ettr\"\nrelation = \"gt\"\nvalue = 0.9\nsource = \"assumption\"\n"),
                    doctest::Contains("needs a declared source"));
}

TEST_CASE("the timeline records phases, failures and utilisation in time order") {
  SimOptions o;
  o.seed = 11;
  o.timeline = true;
  SimResult r = simulate(testing::parse(testing::small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"")), o);
  REQUIRE(!r.timeline.empty());
  REQUIRE(!r.utilisation.empty());
  for (size_t i = 1; i < r.timeline.size(); ++i) CHECK(r.timeline[i - 1].t_ns <= r.timeline[i].t_ns);
  for (const auto& u : r.utilisation) CHECK(u.nodes_in_jobs + u.nodes_spare + u.nodes_down <= 36);
  CHECK(r.timeline.front().kind == "phase");
  std::string csv = timeline_text(r, TimelineFormat::csv);
  CHECK(csv.rfind("record,t_s,kind,subject,detail,site,it_w,nodes_in_jobs,nodes_spare,nodes_down\n", 0) == 0);
  std::string jsonl = timeline_text(r, TimelineFormat::jsonl);
  CHECK(jsonl.find("\"record\":\"utilisation\"") != std::string::npos);
  CHECK(timeline_format_for("run.csv") == TimelineFormat::csv);
  CHECK(timeline_format_for("run.jsonl") == TimelineFormat::jsonl);
  // Recording does not change the run.
  SimOptions quiet = o;
  quiet.timeline = false;
  SimResult q = simulate(testing::parse(testing::small_scenario("recovery = \"restart\"\ncheckpoint = \"daly\"")), quiet);
  CHECK(q.jobs[0].work.committed == r.jobs[0].work.committed);
  CHECK(q.timeline.empty());
}

TEST_CASE("the engine's roles are bound to model variables in presets/sim/model-inputs.toml") {
  CHECK(model_variable_for("t_step").name == "training.t_step");
  CHECK(model_variable_for("pue").unit == "1");
  CHECK(find_model_variable("gpu.power.idle")->scope == InputScope::facility);
  CHECK_THROWS_AS(model_variable_for("no_such_role"), std::logic_error);
  std::string head = "schema = \"gpu-stack.sim-model-inputs.v1\"\n";
  CHECK_THROWS_WITH(parse_model_inputs(head, "m.toml"), doctest::Contains("no [[input]]"));
  std::string one = head + "[[input]]\nrole = \"t_step\"\nvariable = \"x.y\"\nunit = \"s\"\nscope = \"workload\"\nrequired = true\n"
                           "domain = \"positive\"\nmeaning = \"m\"\n";
  CHECK_THROWS_WITH(parse_model_inputs(one, "m.toml"), doctest::Contains("is not bound to a variable"));
  CHECK_THROWS_WITH(parse_model_inputs(one + one, "m.toml"), doctest::Contains("bound twice"));
}
