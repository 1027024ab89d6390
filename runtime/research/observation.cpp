#include "runtime/research/observation.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::research {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string required_text(const Json& j, const char* key, const char* owner) {
  if (!j.contains(key) || !j[key].is_string()) fail(fmt::format("{}: '{}' must be a string", owner, key));
  std::string s = trimmed(j[key].get<std::string>());
  if (s.empty()) fail(fmt::format("{}: '{}' must not be blank", owner, key));
  return s;
}

std::optional<std::string> optional_text(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  std::string s = trimmed(j.at(key).get<std::string>());
  if (s.empty()) fail(fmt::format("'{}' must not be blank when given", key));
  return s;
}

std::optional<double> optional_number(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  if (!j[key].is_number()) fail(fmt::format("'{}' must be a number", key));
  return j[key].get<double>();
}

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
Json opt(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

// Finite numbers only, no NaN hiding in metadata; keys are non-empty strings.
void check_finite_json(const Json& j, const std::string& where) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) fail(where + ": numbers must be finite");
  if (j.is_object())
    for (const auto& [k, v] : j.items()) {
      if (k.empty()) fail(where + ": keys must not be empty");
      check_finite_json(v, where);
    }
  if (j.is_array())
    for (const auto& v : j) check_finite_json(v, where);
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {  // proleptic Gregorian, 1970-01-01 = 0
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

}  // namespace

std::string normalise_utc(const std::string& text) {
  std::string s = trimmed(text);
  int Y, Mo, D, h, mi, sec, n = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &Y, &Mo, &D, &h, &mi, &sec, &n) != 6 || n != 19)
    fail("timestamp '" + text + "' is not ISO-8601 (YYYY-MM-DDTHH:MM:SS)");
  if (Mo < 1 || Mo > 12 || D < 1 || D > 31 || h > 23 || mi > 59 || sec > 60) fail("timestamp '" + text + "' is out of range");
  std::string rest = s.substr(19), frac;
  if (!rest.empty() && rest[0] == '.') {
    size_t k = 1;
    while (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k]))) ++k;
    frac = rest.substr(0, k);
    rest = rest.substr(k);
  }
  int offset_min = 0;
  if (rest == "Z" || rest == "z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    int oh = std::stoi(rest.substr(1, 2)), om = std::stoi(rest.substr(4, 2));
    offset_min = (rest[0] == '-' ? -1 : 1) * (oh * 60 + om);
  } else {
    fail("timestamp '" + text + "' has no time zone; naive times are refused");
  }
  int64_t minutes = days_from_civil(Y, static_cast<unsigned>(Mo), static_cast<unsigned>(D)) * 1440 + h * 60 + mi - offset_min;
  int64_t days = minutes >= 0 ? minutes / 1440 : -((-minutes + 1439) / 1440);
  int64_t mod = minutes - days * 1440;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}Z", y, m, d, mod / 60, mod % 60, sec, frac);
}

void MeasurementUncertainty::validate() const {
  bool interval = lower_bound || upper_bound;
  if (!standard_deviation && !interval) fail("uncertainty needs a standard deviation or an interval");
  if (standard_deviation && !(std::isfinite(*standard_deviation) && *standard_deviation >= 0))
    fail("standard deviation must be finite and >= 0");
  if (interval) {
    if (!lower_bound || !upper_bound) fail("lower and upper bounds come together");
    if (!std::isfinite(*lower_bound) || !std::isfinite(*upper_bound) || *lower_bound > *upper_bound)
      fail("bounds must be finite with lower <= upper");
  }
  if (confidence_level) {
    if (!interval) fail("a confidence level needs an interval");
    if (!(*confidence_level > 0 && *confidence_level <= 1)) fail("confidence level must lie in (0, 1]");
  }
}

Json MeasurementUncertainty::to_json() const {
  return {{"standard_deviation", opt(standard_deviation)}, {"lower_bound", opt(lower_bound)},
          {"upper_bound", opt(upper_bound)}, {"confidence_level", opt(confidence_level)},
          {"distribution", opt(distribution)}, {"notes", opt(notes)}};
}

MeasurementUncertainty MeasurementUncertainty::from_json(const Json& j) {
  MeasurementUncertainty u;
  u.standard_deviation = optional_number(j, "standard_deviation");
  u.lower_bound = optional_number(j, "lower_bound");
  u.upper_bound = optional_number(j, "upper_bound");
  u.confidence_level = optional_number(j, "confidence_level");
  u.distribution = optional_text(j, "distribution");
  u.notes = optional_text(j, "notes");
  u.validate();
  return u;
}

void MeasuredValue::validate() const {
  if (!std::isfinite(value)) fail("measured value must be finite");
  if (trimmed(unit).empty()) fail("measured value needs a unit");
  uncertainty.validate();
  if (uncertainty.lower_bound && (value < *uncertainty.lower_bound || value > *uncertainty.upper_bound))
    fail("measured value lies outside its own uncertainty interval");
  if (!metadata.is_object()) fail("metadata must be an object");
  check_finite_json(metadata, "metadata");
}

Json MeasuredValue::to_json() const {
  return {{"value", value}, {"unit", unit}, {"uncertainty", uncertainty.to_json()}, {"metadata", metadata}};
}

MeasuredValue MeasuredValue::from_json(const Json& j) {
  MeasuredValue m;
  if (!j.contains("value") || !j["value"].is_number()) fail("measured value needs a numeric 'value'");
  m.value = j["value"].get<double>();
  m.unit = required_text(j, "unit", "measured value");
  if (!j.contains("uncertainty")) fail("measured value needs an explicit uncertainty");
  m.uncertainty = MeasurementUncertainty::from_json(j["uncertainty"]);
  m.metadata = j.value("metadata", Json::object());
  m.validate();
  return m;
}

void Provenance::validate() const {
  if (trimmed(source).empty()) fail("provenance needs a source");
  for (const auto& n : notes)
    if (trimmed(n).empty()) fail("provenance notes must not be blank");
}

Json Provenance::to_json() const {
  return {{"source", source}, {"uri", opt(uri)}, {"citation", opt(citation)}, {"checksum", opt(checksum)},
          {"license", opt(license)}, {"retrieved_at", opt(retrieved_at)}, {"notes", notes}};
}

Provenance Provenance::from_json(const Json& j) {
  Provenance p;
  p.source = required_text(j, "source", "provenance");
  p.uri = optional_text(j, "uri");
  p.citation = optional_text(j, "citation");
  p.checksum = optional_text(j, "checksum");
  p.license = optional_text(j, "license");
  if (auto t = optional_text(j, "retrieved_at")) p.retrieved_at = normalise_utc(*t);
  if (j.contains("notes") && !j["notes"].is_null()) {
    if (!j["notes"].is_array()) fail("provenance notes must be a list (a single string is refused)");
    for (const auto& n : j["notes"]) p.notes.push_back(trimmed(n.get<std::string>()));
  }
  p.validate();
  return p;
}

void Observation::validate() const {
  if (trimmed(observation_id).empty()) fail("observation needs an id");
  if (measured_values.empty()) fail("observation " + observation_id + " has no measured values");
  for (const auto& [name, v] : measured_values) {
    if (trimmed(name).empty() || trimmed(name) != name) fail("metric names must be trimmed and non-blank");
    v.validate();
  }
  for (const auto* part : {&topology, &workload, &software, &instrumentation})
    if (!part->is_object() || part->empty()) fail("observation " + observation_id + ": topology, workload, software and instrumentation must be non-empty objects");
  if (!metadata.is_object()) fail("observation metadata must be an object");
  for (const auto* part : {&topology, &workload, &software, &instrumentation, &metadata}) check_finite_json(*part, observation_id);
  provenance.validate();
  if (normalise_utc(timestamp) != timestamp) fail("observation timestamp must be UTC with 'Z'");
}

Json Observation::to_json() const {
  Json values = Json::object();
  for (const auto& [name, v] : measured_values) values[name] = v.to_json();
  return {{"observation_id", observation_id}, {"measured_values", values}, {"timestamp", timestamp},
          {"topology", topology}, {"workload", workload}, {"software", software},
          {"instrumentation", instrumentation}, {"provenance", provenance.to_json()},
          {"metadata", metadata}, {"schema_version", schema_version}};
}

Observation Observation::from_json(const Json& j) {
  Observation o;
  o.observation_id = required_text(j, "observation_id", "observation");
  if (!j.contains("measured_values") || !j["measured_values"].is_object()) fail("observation needs measured_values");
  for (const auto& [name, v] : j["measured_values"].items()) {
    std::string key = trimmed(name);
    if (o.measured_values.count(key)) fail("metric '" + key + "' appears twice after trimming");
    o.measured_values.emplace(key, MeasuredValue::from_json(v));
  }
  o.timestamp = normalise_utc(required_text(j, "timestamp", "observation"));
  o.topology = j.value("topology", Json::object());
  o.workload = j.value("workload", Json::object());
  o.software = j.value("software", Json::object());
  o.instrumentation = j.value("instrumentation", Json::object());
  if (!j.contains("provenance")) fail("observation needs provenance");
  o.provenance = Provenance::from_json(j["provenance"]);
  o.metadata = j.value("metadata", Json::object());
  o.schema_version = j.value("schema_version", std::string("1.0"));
  o.validate();
  return o;
}

}  // namespace gs::research
