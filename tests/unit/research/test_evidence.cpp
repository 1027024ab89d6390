// Observations, provenance and splits.
#include <doctest/doctest.h>

#include "runtime/research/observation.h"
#include "runtime/research/split.h"

using namespace gs::research;

namespace {
Json observation_json(const std::string& id) {
  return {{"observation_id", id},
          {"measured_values", {{"validation_loss", {{"value", 2.578}, {"unit", "1"},
                                                    {"uncertainty", {{"lower_bound", 2.5775}, {"upper_bound", 2.5785}}}}}}},
          {"timestamp", "2026-06-30T12:00:00+02:00"},
          {"topology", {{"gpus", 8}}},
          {"workload", {{"model", "test"}}},
          {"software", {{"framework", "test"}}},
          {"instrumentation", {{"meter", "none"}}},
          {"provenance", {{"source", "a paper"}, {"notes", {"table 1"}}}}};
}
}  // namespace

TEST_CASE("an observation round-trips and normalises its timestamp to UTC") {
  Observation o = Observation::from_json(observation_json("obs-1"));
  CHECK(o.timestamp == "2026-06-30T10:00:00Z");
  CHECK(o.measured_values.at("validation_loss").uncertainty.lower_bound == 2.5775);
  Observation again = Observation::from_json(o.to_json());
  CHECK(again.to_json() == o.to_json());
  CHECK(normalise_utc("2024-01-01T00:30:00-01:00") == "2024-01-01T01:30:00Z");
  CHECK(normalise_utc("2024-03-01T00:10:00+01:00") == "2024-02-29T23:10:00Z");
}

TEST_CASE("evidence refuses what it cannot stand behind") {
  Json j = observation_json("obs-1");
  j["timestamp"] = "2026-06-30T12:00:00";
  CHECK_THROWS_WITH(Observation::from_json(j), doctest::Contains("no time zone"));
  j = observation_json("obs-1");
  j["measured_values"]["validation_loss"]["uncertainty"] = Json::object();
  CHECK_THROWS_WITH(Observation::from_json(j), doctest::Contains("standard deviation or an interval"));
  j = observation_json("obs-1");
  j["measured_values"]["validation_loss"]["value"] = 2.6;
  CHECK_THROWS_WITH(Observation::from_json(j), doctest::Contains("outside its own uncertainty"));
  j = observation_json("obs-1");
  j["measured_values"]["validation_loss"]["uncertainty"] = {{"standard_deviation", 0.01}, {"confidence_level", 0.9}};
  CHECK_THROWS_WITH(Observation::from_json(j), doctest::Contains("confidence level needs an interval"));
  j = observation_json("obs-1");
  j["provenance"]["notes"] = "a single string";
  CHECK_THROWS_WITH(Observation::from_json(j), doctest::Contains("must be a list"));
  j = observation_json("obs-1");
  j["topology"] = Json::object();
  CHECK_THROWS(Observation::from_json(j));
}

TEST_CASE("calibration and evaluation splits refuse to overlap") {
  CHECK_THROWS_WITH(CalibrationEvaluationSplit("s", {"a", "b", "c"}, {"c", "d", "b"}),
                    "split s: ids on both the calibration and the evaluation side: b, c");
  CHECK_THROWS_WITH(CalibrationEvaluationSplit("s", {"a", "a"}, {"b"}), doctest::Contains("twice"));
  CHECK_THROWS(CalibrationEvaluationSplit("s", {}, {"b"}));
  CalibrationEvaluationSplit split("s", {"obs-1"}, {"obs-2"});
  std::vector<Observation> obs = {Observation::from_json(observation_json("obs-1")), Observation::from_json(observation_json("obs-2")),
                                  Observation::from_json(observation_json("obs-3"))};
  CHECK_NOTHROW(split.validate_against(obs));
  CHECK_THROWS_WITH(split.validate_against(obs, true), doctest::Contains("obs-3"));
  CHECK_THROWS_WITH(CalibrationEvaluationSplit("s", {"obs-1"}, {"obs-9"}).validate_against(obs), doctest::Contains("unknown observation 'obs-9'"));
  CHECK(overlap({"x", "y"}, {"y", "z"}) == std::vector<std::string>{"y"});
}
