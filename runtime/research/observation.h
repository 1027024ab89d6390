// Evidence: measured values with their uncertainty, where they came from, and the configuration they were
// measured on (anchor-research.md §1.1–1.4). Every type checks itself on construction and is immutable
// afterwards; JSON round-trips exactly. Nothing here ever invents an uncertainty or a source.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/research/canonical_json.h"

namespace gs::research {

// Either a standard deviation or a closed interval (or both). A confidence level is only meaningful for
// an interval; a tolerance interval may carry none.
struct MeasurementUncertainty {
  std::optional<double> standard_deviation, lower_bound, upper_bound, confidence_level;
  std::optional<std::string> distribution, notes;

  void validate() const;  // throws std::invalid_argument
  Json to_json() const;
  static MeasurementUncertainty from_json(const Json& j);
};

struct MeasuredValue {
  double value = 0;
  std::string unit;
  MeasurementUncertainty uncertainty;
  Json metadata = Json::object();

  void validate() const;
  Json to_json() const;
  static MeasuredValue from_json(const Json& j);
};

struct Provenance {
  std::string source;
  std::optional<std::string> uri, citation, checksum, license, retrieved_at;  // retrieved_at: UTC, "Z"
  std::vector<std::string> notes;

  void validate() const;
  Json to_json() const;
  static Provenance from_json(const Json& j);
};

// One versioned measurement of one workload/topology configuration.
struct Observation {
  std::string observation_id;
  std::map<std::string, MeasuredValue> measured_values;  // metric name -> value; never empty
  std::string timestamp;                                 // UTC, ISO-8601 with "Z"
  Json topology, workload, software, instrumentation;    // non-empty objects
  Provenance provenance;
  Json metadata = Json::object();
  std::string schema_version = "1.0";

  void validate() const;
  Json to_json() const;
  static Observation from_json(const Json& j);  // validates; trims and normalises as documented
};

// "2024-07-23T10:00:00+02:00" -> "2024-07-23T08:00:00Z". Throws on text without a zone (a naive time
// cannot be placed on the UTC axis) or on malformed text.
std::string normalise_utc(const std::string& iso8601);

}  // namespace gs::research
