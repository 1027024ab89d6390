// gpu_stack._core: the runtime's questions for Python, through the same library functions the gpu-stack
// command line calls (runtime/api, runtime/uq, runtime/strategy, runtime/sim, runtime/validate). Results
// come back as the CLI's JSON documents (parsed by the Python side) or, for sweeps and samples, as NumPy
// arrays in SI base units. Every error becomes gpu_stack.Error carrying the CLI's message and exit code.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/api/session.h"
#include "runtime/presets.h"
#include "runtime/report.h"
#include "runtime/research/canonical_json.h"
#include "runtime/sim/commands.h"
#include "runtime/strategy/report.h"
#include "runtime/uq/commands.h"
#include "runtime/uq/sweep_spec.h"
#include "runtime/validate/runs.h"
#include "tools/frontend/workspace_env.h"
#include "runtime/validate/validate.h"

namespace py = pybind11;

namespace {

// An error with the exit status the CLI would give (1 findings, 2 bad input).
struct ApiError : std::runtime_error {
  int code;
  ApiError(int c, const std::string& m) : std::runtime_error(m), code(c) {}
};

// Where the files are, as the CLI finds them (tools/frontend/workspace_env.h): the arguments, else the
// GSTACK_* environment, else the source tree's folders.
gs::Workspace workspace(const std::string& image, const std::string& presets) {
  return gs::frontend::resolve_workspace({image, presets, ""}, gs::frontend::build_defaults(""), gs::frontend::process_environment());
}

class Model {
 public:
  Model(const std::string& image, const std::string& presets)
      : image_path_(image), presets_dir_(workspace(image, presets).presets_dir), reg_(gs::api::load_registry(image)) {
    gs::frontend::install(workspace(image, presets));  // the JIT's module and the simulator's bindings
  }

  const std::string& image_path() const { return image_path_; }
  const std::string& presets_dir() const { return presets_dir_; }
  gs::PresetLibrary library() const { return gs::PresetLibrary(reg_, presets_dir_); }

  std::vector<std::string> variables(const std::string& prefix) const {
    std::vector<std::string> names;
    for (uint32_t v : reg_.by_prefix(prefix)) names.push_back(reg_.var(v).name);
    return names;
  }

  std::vector<std::string> presets() const { return library().names(); }

  // What the model declares about one variable (the export's JSON node, plus its relations).
  py::dict describe(const std::string& name) const {
    const uint32_t id = gs::lookup_variable(reg_, name, "variable");
    const gs::Variable& v = reg_.var(id);
    py::dict d;
    d["name"] = v.name;
    d["kind"] = gs::var_kind_name(reg_.kind(id));
    d["unit"] = v.unit;
    d["si_unit"] = reg_.units().describe(v.dim);
    d["unit_scale"] = v.unit_scale;
    d["description"] = v.description;
    d["doc"] = v.doc;
    d["system"] = reg_.image().systems[v.system].name;
    d["location"] = reg_.location(v.span);
    if (v.is_constant) d["value"] = v.value;
    py::list defs, refs;
    for (uint32_t r : reg_.definitions(id))
      defs.append(py::dict(py::arg("name") = reg_.relation(r).name, py::arg("role") = gs::role_name(reg_.relation(r).role),
                           py::arg("variant") = reg_.relation(r).variant_key, py::arg("location") = reg_.location(reg_.relation(r).span)));
    for (uint32_t r : v.refs) refs.append(reg_.image().refs[r].name);
    d["definitions"] = defs;
    d["refs"] = refs;
    d["used_in"] = reg_.used_in(id).size();
    return d;
  }

  // The resolution as `gpu-stack resolve --json` prints it (a JSON document, parsed on the Python side).
  std::string resolve(const std::string& target, const gs::api::ScenarioInputs& in, bool check_overrides) const {
    py::gil_scoped_release unlocked;
    const uint32_t t = gs::lookup_variable(reg_, target, "target variable");
    const gs::ScenarioPoint s = gs::api::build_scenario(reg_, library(), in);
    gs::ResolveOptions options;
    options.explain = true, options.check_overrides = check_overrides;
    const gs::api::ResolveAnswer a = gs::api::resolve(reg_, s, t, options);
    nlohmann::ordered_json j = gs::resolution_document(reg_, a.resolution);
    if (a.interval)
      j["interval"] = {{"p5", a.interval->p5}, {"median", a.interval->p50}, {"p95", a.interval->p95},
                       {"samples", a.interval->samples}, {"seed", a.interval_seed}};
    return j.dump();
  }

  // `vary` items are (name, spec) with spec a CLI SPEC string, or (name, values, unit) with numbers in
  // `unit` (the variable's display unit when empty). Columns come back in SI base units.
  py::dict sweep(const std::vector<std::string>& target_names, const py::list& vary, bool zip, const std::string& engine,
                 unsigned threads, const gs::api::ScenarioInputs& in) const {
    std::vector<uint32_t> targets;
    for (const auto& t : target_names) targets.push_back(gs::lookup_variable(reg_, t, "target variable"));
    std::vector<gs::SweepAxis> axes;
    for (const auto& item : vary) {
      const auto entry = item.cast<py::tuple>();
      const std::string name = entry[0].cast<std::string>();
      if (py::isinstance<py::str>(entry[1])) {
        auto parsed = gs::parse_sweep_axes(reg_, {name + "=" + entry[1].cast<std::string>()});
        axes.push_back(std::move(parsed[0]));
        continue;
      }
      const uint32_t var = gs::lookup_variable(reg_, name, "swept variable");
      const std::string unit = entry.size() > 2 ? entry[2].cast<std::string>() : "";
      const double scale = unit.empty() ? reg_.var(var).unit_scale : gs::parse_quantity(reg_, var, "1 " + unit);
      auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(entry[1]);
      if (!values || values.ndim() != 1) throw ApiError(2, "the values of " + name + " must be a one-dimensional sequence of numbers");
      if (size_t(values.size()) > gs::kMaxSweepValues)
        throw ApiError(2, "a list of more than " + std::to_string(gs::kMaxSweepValues) + " values for " + name);
      gs::SweepAxis axis{var, {}};
      axis.values.reserve(size_t(values.size()));
      for (py::ssize_t i = 0; i < values.size(); ++i) {
        const double x = values.at(i);
        if (!std::isfinite(x)) throw ApiError(2, "the values of " + name + " must be finite numbers");
        axis.values.push_back(x * scale);
      }
      axes.push_back(std::move(axis));
    }
    const gs::ScenarioPoint s = gs::api::build_scenario(reg_, library(), in);
    gs::SweepResult r;
    {
      py::gil_scoped_release unlocked;
      r = gs::run_sweep(reg_, s, targets, std::move(axes), zip, engine, threads);
    }
    py::dict columns, units;
    for (size_t a = 0; a < r.axes.size(); ++a) {
      py::array_t<double> col(py::ssize_t(r.points));
      double* out = col.mutable_data();
      for (size_t p = 0; p < r.points; ++p) out[p] = r.axis_value(a, p);
      const std::string& n = reg_.var(r.axes[a].var).name;
      columns[n.c_str()] = col;
      units[n.c_str()] = reg_.units().describe(reg_.var(r.axes[a].var).dim);
    }
    const size_t nt = r.targets.size();
    for (size_t t = 0; t < nt; ++t) {
      py::array_t<double> col(py::ssize_t(r.points));
      double* out = col.mutable_data();
      for (size_t p = 0; p < r.points; ++p) out[p] = r.y[p * nt + t];
      const std::string& n = reg_.var(r.targets[t]).name;
      columns[n.c_str()] = col;
      units[n.c_str()] = reg_.units().describe(reg_.var(r.targets[t]).dim);
    }
    py::list not_read;
    for (uint32_t v : r.inputs_not_read) not_read.append(reg_.var(v).name);
    py::dict d;
    d["columns"] = columns, d["units"] = units, d["points"] = r.points, d["engine"] = r.engine, d["threads"] = r.threads;
    d["seconds"] = r.seconds, d["compile_ms"] = r.compile_ms, d["nonfinite"] = r.nonfinite, d["inputs_not_read"] = not_read;
    return d;
  }

  py::dict uncertainty(const std::string& target, size_t samples, uint64_t seed, unsigned threads, const gs::api::ScenarioInputs& in) const {
    const uint32_t t = gs::lookup_variable(reg_, target, "target variable");
    const gs::ScenarioPoint s = gs::api::build_scenario(reg_, library(), in);
    gs::UncertaintyResult r;
    {
      py::gil_scoped_release unlocked;
      r = gs::run_uncertainty(reg_, s, t, samples, seed, threads, true);
    }
    const gs::Summary& m = r.summary;
    py::dict d;
    d["target"] = target, d["unit"] = reg_.units().describe(reg_.var(t).dim), d["samples"] = m.samples, d["seed"] = seed;
    d["nonfinite"] = m.nonfinite, d["mean"] = m.mean, d["sd"] = m.sd, d["median"] = m.p50, d["p5"] = m.p5, d["p95"] = m.p95;
    d["min"] = m.min, d["max"] = m.max, d["seconds"] = r.seconds;
    py::list inputs;
    for (const auto& [var, dist] : s.uncertain)
      inputs.append(py::dict(py::arg("name") = reg_.var(var).name, py::arg("distribution") = dist.describe()));
    d["inputs"] = inputs;
    d["histogram"] = py::dict(py::arg("edges") = m.bin_edges, py::arg("counts") = m.bin_counts);
    d["values"] = py::array_t<double>(py::ssize_t(r.samples.size()), r.samples.data());
    return d;
  }

  py::dict sensitivity(const std::string& target, size_t samples, uint64_t seed, unsigned threads, const gs::api::ScenarioInputs& in) const {
    const uint32_t t = gs::lookup_variable(reg_, target, "target variable");
    const gs::ScenarioPoint s = gs::api::build_scenario(reg_, library(), in);
    gs::SensitivityResult r;
    {
      py::gil_scoped_release unlocked;
      r = gs::run_sensitivity(reg_, s, t, samples, seed, threads);
    }
    py::list rows;
    for (const auto& x : r.inputs)
      rows.append(py::dict(py::arg("name") = reg_.var(x.var).name, py::arg("first_order") = x.first, py::arg("total_order") = x.total,
                           py::arg("elasticity") = x.elasticity, py::arg("distribution") = x.dist.describe()));
    py::dict d;
    d["target"] = target, d["samples"] = r.samples, d["seed"] = r.seed, d["evaluations"] = r.evaluations, d["variance"] = r.variance;
    d["inputs"] = rows;
    return d;
  }

  // `gpu-stack plan --json`.
  std::string plan(gs::api::ScenarioInputs in, const std::string& workload, const std::string& knobs,
                   const gs::strategy::StrategyRequest& request) const {
    py::gil_scoped_release unlocked;
    if (!workload.empty()) in.workloads.push_back(workload);
    const auto a = gs::api::plan(reg_, library(), presets_dir_, in, knobs, /*serving=*/false, request);
    return gs::strategy::plan_json(reg_, a.space, a.result);
  }

  // `gpu-stack simulate --json`.
  std::string simulate(gs::sim::SimulateArgs args, const std::vector<std::string>& model_presets) const {
    py::gil_scoped_release unlocked;
    args.image_path = image_path_;
    if (!model_presets.empty()) args.model = gs::api::simulator_inputs(reg_, library(), model_presets);
    try {
      return gs::research::pretty_dump(gs::research::Json(gs::sim::simulate_runs(args)));
    } catch (const gs::sim::RunError& e) {
      throw ApiError(e.failure == gs::sim::RunFailure::invariant ? 1 : 2, e.what());
    }
  }

  // `gpu-stack validate --json`.
  std::string validate(const std::string& runs) const {
    py::gil_scoped_release unlocked;
    const auto rows = gs::validate::read_runs(runs);
    return gs::validate::report_json(gs::validate::run_validation(reg_, library(), rows, runs));
  }

 private:
  std::string image_path_, presets_dir_;
  gs::Registry reg_;
};

gs::api::ScenarioInputs scenario_of(const std::vector<std::string>& presets, const std::vector<std::string>& assigns,
                                    const std::vector<std::string>& variants) {
  return {presets, assigns, variants};
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "gpu_stack's runtime (see the gpu_stack package for the documented interface)";
  static py::exception<ApiError> error(m, "Error");
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](int code, const std::string& message) {
      py::object e = py::reinterpret_borrow<py::object>(error.ptr())(message);
      e.attr("code") = code;
      e.attr("message") = message;
      PyErr_SetObject(error.ptr(), e.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ApiError& e) {
      raise(e.code, e.what());
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      // As in the CLI, every error that reaches here is about the input: image, preset, name or value.
      raise(2, e.what());
    }
  });

  m.def("default_image_path", [](const std::string& build_dir) {
    return gs::frontend::resolve_workspace({}, gs::frontend::build_defaults(build_dir), gs::frontend::process_environment()).image;
  });
  m.attr("MAX_SWEEP_VALUES") = gs::kMaxSweepValues;
  m.attr("MAX_SAMPLES") = gs::kMaxSamples;

  py::class_<Model>(m, "Model")
      .def(py::init<const std::string&, const std::string&>(), py::arg("image"), py::arg("presets") = "")
      .def_property_readonly("image_path", &Model::image_path)
      .def_property_readonly("presets_dir", &Model::presets_dir)
      .def("variables", &Model::variables, py::arg("prefix") = "")
      .def("presets", &Model::presets)
      .def("describe", &Model::describe)
      .def("resolve", [](const Model& md, const std::string& target, const std::vector<std::string>& presets,
                         const std::vector<std::string>& assigns, const std::vector<std::string>& variants,
                         bool check_overrides) { return md.resolve(target, scenario_of(presets, assigns, variants), check_overrides); })
      .def("sweep", [](const Model& md, const std::vector<std::string>& targets, const py::list& vary, bool zip, const std::string& engine,
                       unsigned threads, const std::vector<std::string>& presets, const std::vector<std::string>& assigns,
                       const std::vector<std::string>& variants) {
        return md.sweep(targets, vary, zip, engine, threads, scenario_of(presets, assigns, variants));
      })
      .def("uncertainty", [](const Model& md, const std::string& target, size_t samples, uint64_t seed, unsigned threads,
                             const std::vector<std::string>& presets, const std::vector<std::string>& assigns,
                             const std::vector<std::string>& variants) {
        return md.uncertainty(target, samples, seed, threads, scenario_of(presets, assigns, variants));
      })
      .def("sensitivity", [](const Model& md, const std::string& target, size_t samples, uint64_t seed, unsigned threads,
                             const std::vector<std::string>& presets, const std::vector<std::string>& assigns,
                             const std::vector<std::string>& variants) {
        return md.sensitivity(target, samples, seed, threads, scenario_of(presets, assigns, variants));
      })
      .def("plan", [](const Model& md, const std::vector<std::string>& presets, const std::string& workload, const std::vector<std::string>& fixes,
                      const std::string& objective, size_t top, unsigned threads, const std::string& knobs,
                      const std::vector<std::string>& assigns, const std::vector<std::string>& variants) {
        gs::strategy::StrategyRequest req;
        req.fixes = fixes, req.objective = objective, req.top = top, req.threads = threads;
        if (top < 1 || top > 1000) throw ApiError(2, "top must be between 1 and 1000");
        return md.plan(scenario_of(presets, assigns, variants), workload, knobs, req);
      })
      .def("simulate", [](const Model& md, const std::string& scenario, const std::vector<std::string>& presets, std::optional<uint64_t> seed,
                          uint32_t replicas, std::optional<std::string> policy, unsigned threads, double max_gpu_days, uint64_t max_events) {
        gs::sim::SimulateArgs a;
        a.scenario = scenario, a.seed = seed, a.replicas = replicas, a.policy = policy, a.threads = threads;
        a.max_gpu_days = max_gpu_days, a.max_events = max_events;
        return md.simulate(a, presets);
      })
      .def("validate", &Model::validate);
}
