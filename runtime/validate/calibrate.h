// `gpu-stack calibrate`: fits a few shared efficiency parameters of the model to the tier-A throughput of
// a table of published runs and writes them, with their provenance, as a preset
// (presets/calibration/fitted.toml). Deterministic: a fixed start, Nelder-Mead in a transformed space
// (logit for shares, log for positive counts), one restart from the best point.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/presets.h"
#include "runtime/registry.h"
#include "runtime/validate/engine.h"
#include "runtime/validate/runs.h"
#include "runtime/validate/search.h"

namespace gs::validate {

struct FitParameter {
  std::string name;   // model variable (a root of the kernel or collective system)
  bool share = true;  // true: a share in (0, 1), fitted as a logit; false: positive, fitted as a log
  double start = 0;   // starting value, base units
  std::string why;    // what it stands for (written into the preset)
};

// The shared parameters fitted by default: the [[fit]] entries of validate/mapping.toml.
std::vector<FitParameter> default_fit_parameters(const Registry& reg, const PresetLibrary& lib);
// Parameters by variable name: a variable declared range(0, 1) is fitted as a share, any other as a
// positive value; the start is the default table's, else 0.5 for a share and 1 otherwise.
std::vector<FitParameter> fit_parameters(const Registry& reg, const PresetLibrary& lib, const std::vector<std::string>& names);

// Nelder-Mead on f over R^n from x0 with initial step `step` per coordinate; returns the best point.
// Deterministic; stops after `max_evals` evaluations or when the simplex's values agree to `ftol`.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0, double step,
                                size_t max_evals, double ftol, size_t* evals = nullptr);

struct FitRow {
  std::string id, group;
  double reported = 0, predicted = 0;  // primary throughput, the row's unit
};

struct FitResult {
  std::vector<FitParameter> parameters;
  std::vector<double> values;        // fitted, base units
  double objective = 0;              // mean |ln(predicted / reported)| at the fit
  double objective_start = 0;        // the same at the starting values
  size_t evaluations = 0;
  std::vector<FitRow> rows;          // tier-A rows used, at the fit
  std::vector<std::string> skipped;  // tier-A rows not used, with the reason
};

// One row's throughput comparison as the fit sees it (the row must outlive the use).
struct FitUse {
  const PreparedRow* row = nullptr;
  size_t out = 0;
  double reported = 0, factor = 1;
};
// A built row with a throughput comparison, prepared with the fit parameters varied; else nothing.
std::optional<FitUse> fit_use(const PreparedRow& p);
double fit_prediction(const Engine& engine, const FitUse& u, const std::vector<double>& values);

struct FitValues {
  std::vector<double> values;
  double objective = 0, objective_start = 0;
  size_t evaluations = 0;
};
// The fit itself: mean |ln(predicted / reported)| minimised over the parameters (see calibrate()).
FitValues fit_values(const Engine& engine, const std::vector<FitUse>& uses, const std::vector<FitParameter>& params);

// Uncertainty of a fit: the residual scatter sigma of ln(predicted / reported) over the rows (n - k
// degrees of freedom) and the parameters' covariance (J^T J / sigma^2 + I)^-1 in the fit's free space (J:
// the gradient of ln(prediction) per row; a unit prior per free coordinate bounds what no row constrains).
struct FitUncertainty {
  std::vector<FitParameter> parameters;
  std::vector<double> values;
  double sigma = 0;
  std::vector<std::vector<double>> covariance;
};
FitUncertainty fit_uncertainty(const Engine& engine, const std::vector<FitUse>& uses, const std::vector<FitParameter>& params,
                               const std::vector<double>& values);
// Standard deviation of ln(prediction) for a row: parameter uncertainty g^T C g plus the residual
// scatter sigma^2 a new row carries.
double prediction_log_sd(const Engine& engine, const FitUse& use, const FitUncertainty& u);

std::vector<uint32_t> fit_variables(const Registry& reg, const std::vector<FitParameter>& params);
// The row's scenario for fitting, with the near-best spread: mapped, with unstated settings chosen by the
// exhaustive search with the parameters at their documented starts (so the choice does not depend on
// fitted values).
// `search` false keeps the defaults for unstated settings (micro-batch 1, no interleaving, no recomputation).
SearchChoice scenario_for_fit(const Registry& reg, const PresetLibrary& lib, Engine& engine, const RunRow& r, const std::vector<FitParameter>& params,
                              bool search = true);

FitResult calibrate(const Registry& reg, const PresetLibrary& lib, const std::vector<RunRow>& rows,
                    const std::vector<FitParameter>& params);

// The preset text: [assign] of the fitted values plus provenance in `source` and `notes`.
std::string fitted_preset_text(const Registry& reg, const FitResult& fit, const std::string& runs_path, const std::string& runs_sha256,
                               const std::string& date);

struct CalibrateOptions {
  std::vector<std::string> runs_paths;  // empty: the mapping table's default_runs under data_dir
  std::string data_dir;                 // Workspace::data_dir
  std::string out_path;  // empty: print the preset instead of writing it
  bool force = false;    // replace out_path when it exists (never done otherwise)
  std::vector<std::string> params;  // variables to fit; empty: default_fit_parameters()
};
// `calibrate`: the fit over the options' tables and its preset text, written atomically to out_path when
// one is given (refused when it exists without `force`, checked before the fit). Throws on bad input.
struct Calibration {
  std::vector<std::string> runs;  // the tables read, in order
  FitResult fit;
  std::string preset;             // fitted_preset_text()
  std::string written;            // the file written; empty: none
};
Calibration calibrate_runs(const Registry& reg, const PresetLibrary& lib, const CalibrateOptions& opt);
void to_json(nlohmann::ordered_json& j, const Calibration& c);

}  // namespace gs::validate
