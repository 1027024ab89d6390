// The quick estimate (`gpu-stack estimate`): model size, tokens, accelerator and count, optionally the
// price of an accelerator-hour and the electricity tariff, to days, energy and cost with a 90% interval.
//
// Nothing here is a formula of the model. The estimate is a scenario: the base preset named by
// presets/estimate/accelerators.toml, the accelerator's hardware preset, and the request's values
// assigned to the model variables that file names; the answers are the `estimate` system's variables
// resolved through the registry, and their intervals come from the compiled cone over the uncertain
// inputs (the assumed MFU, the PUE, and the price and tariff ranges).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/uq/commands.h"

namespace gs::estimate {

// What the user typed. Counts take K/M/B/G/T suffixes ("70B", "15T", "2.5K"); --mfu, --price-per-gpu-hour
// --tariff and --pue take a value or a range "LO..HI" (sampled uniformly for the interval).
struct EstimateRequest {
  std::string params, tokens, gpu, gpus;
  std::string mfu, price_per_gpu_hour, tariff, pue;  // empty: not given
  std::string presets_dir;
  std::string runs_path;    // published runs whose MFU column gives the assumed MFU
  size_t samples = 20000;   // randomized quasi-Monte Carlo samples for the intervals (interval_of)
  uint64_t seed = 1;
};

// Where an input's value and spread come from.
struct InputOrigin {
  double value = 0;                 // base units
  std::optional<double> low, high;  // the range sampled for the interval, base units
  std::string origin;               // e.g. "--mfu", "median of 8 rows of data/runs/calibration-runs.csv"
  std::vector<std::string> rows;    // run ids the MFU was computed from
};

struct EstimateLine {
  std::string label;
  uint32_t var = 0;
  std::optional<double> value;            // base units; empty when an input is missing
  std::optional<Interval> interval;       // empty for facts and for values no uncertain input moves
  std::vector<uint32_t> missing;          // inputs still missing
};

struct EstimateResult {
  std::string accelerator, hardware_preset;
  std::vector<std::string> layers;  // presets applied, in order
  double params = 0, tokens = 0, gpus = 0;
  InputOrigin mfu;
  std::optional<InputOrigin> price, tariff, pue;  // tariff, pue empty: the base preset's value and range
  std::vector<EstimateLine> lines;
  size_t samples = 0;
  uint64_t seed = 0;
};

// Throws PresetError (bad input: an unknown accelerator, a malformed count, an MFU outside (0, 1],
// no runs to take an MFU from) or the CSV reader's error for an unreadable runs file.
EstimateResult estimate(const Registry& reg, const PresetLibrary& lib, const EstimateRequest& req);

std::string estimate_text(const Registry& reg, const EstimateResult& res);
std::string estimate_json(const Registry& reg, const EstimateResult& res);

// A positive count with an optional K/M/B/G/T suffix (decimal): "70B" = 7e10. Empty when malformed.
std::optional<double> parse_count(const std::string& text);

// Accelerator names the estimate knows (canonical names, as in accelerators.toml).
std::vector<std::string> accelerator_names(const std::string& presets_dir);

}  // namespace gs::estimate
