// The numbers the simulator consumes, and the boundary where the model provides them.
//
// Every duration and power of an event derives from the fields below, and each field is one named variable
// of the model (training.t_step, gpu.power.total, econ.power.price_kwh ...), expressed in the working unit
// that sim_model_variables() lists for it (s, byte, W, USD/J ...). Today a scenario
// assigns those variables directly, with units and a source for each; later the resolver and the JIT
// compute them from the scenario's model cones and hand over the same map of names to values, so the
// simulator does not change. Nothing is defaulted: a required variable that is absent is an error naming
// it, and an optional one is either given or reported as not modelled.
//
// Workload variables describe one job (set at the top level or on the job); facility variables describe
// one site and its installed hardware (set at the top level or on the site).
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gs::sim {

struct WorkloadInputs {
  double t_step_s = 0;                      // training.t_step: one optimizer step at full membership
  double t_exposed_comm_s = 0;              // training.t_exposed_comm: part of t_step spent waiting on collectives
  uint64_t tokens_per_step = 0;             // arch.tokens_per_step (whole tokens: work is counted in tokens)
  std::optional<double> flops_per_step;     // training.flops_per_step (reporting only)
  double state_bytes = 0;                   // training.checkpoint.state_bytes: one copy of weights and optimizer state
  double restart_overhead_s = 0;            // training.restart_overhead: relaunch and initialise, without state load
  double detection_s = 0;                   // training.failure_detection_time: failure to observed interruption
  std::optional<double> reconfig_s;         // training.elastic.reconfig_time: membership change without a restart
  std::optional<double> memory_ckpt_s;      // training.checkpoint.memory_write_time: blocking part of a peer-memory checkpoint
  std::optional<double> memory_restore_s;   // training.checkpoint.memory_restore_time
  std::optional<double> state_transfer_bw;  // cluster.state_transfer.bw: bytes/s to bring a rejoining replica up to date
  double gpu_busy_w = 0;                    // gpu.power.total: average board power while computing
  std::optional<double> gpu_comm_w;         // gpu.power.comm: while waiting on exposed collectives (else gpu.power.total)
};

// The site's hardware at rest and its facility: idle power is a property of the installed nodes, whatever
// job runs on them (spare nodes draw it too).
struct FacilityInputs {
  double gpu_idle_w = 0;                  // gpu.power.idle
  double node_host_w = 0;                 // cluster.node.host_power: CPUs, memory, NICs and fans of one node
  double pue = 1;                         // thermal.dc.pue
  std::optional<double> price_usd_per_j;  // econ.power.price_kwh, in USD/J
  std::optional<double> gpu_usd_per_s;    // econ.gpu.price_hour, per GPU, in USD/s
};

struct SimInputs {
  WorkloadInputs workload;
  FacilityInputs facility;
};

enum class InputScope { workload, facility };
enum class InputDomain { positive, nonnegative, at_least_one, whole_positive };

// One simulator input: the engine's role for it and the model variable that fills it. The binding lives in
// presets/sim/model-inputs.toml, so no engine code names a model variable.
struct ModelVariable {
  std::string role;     // what the engine uses it for (t_step, gpu_busy_w ...)
  std::string name;     // the model variable (training.t_step ...)
  std::string unit;     // working unit: scenario values are converted to it, after a dimension check
  InputScope scope = InputScope::workload;
  bool required = false;
  InputDomain domain = InputDomain::positive;
  std::string meaning;
};

// Where the bindings file is (Workspace::sim_model_inputs(), presets/sim/model-inputs.toml): set once by
// the front end before the first simulation, since the bindings are read once per process.
void use_model_inputs(const std::string& path);
std::string model_inputs_path();  // as set; throws std::logic_error when no front end set it
// The bindings, in file order (validation messages and documentation), read once from
// model_inputs_path(). Throws std::invalid_argument when the file is missing or malformed.
const std::vector<ModelVariable>& sim_model_variables();
const ModelVariable* find_model_variable(const std::string& name);
const ModelVariable& model_variable_for(const std::string& role);  // throws std::logic_error on an unknown role
// Values keyed by the engine's roles ({"t_step", 1.5}, ...) re-keyed by the model variables bound to them,
// for reference scenarios that set the simulator's inputs directly. Throws std::logic_error on an unknown role.
std::map<std::string, double> model_values_by_role(const std::vector<std::pair<std::string, double>>& by_role);
// The bindings file's text, read from model_inputs_path(); std::invalid_argument when it cannot be read.
std::string model_inputs_text();
// The variable names that table [table] of a bindings file gives to `keys`, in the order of `keys`. Throws
// std::invalid_argument (origin:line:column for a syntax error) when the table is missing (the message says
// it holds `purpose`), has a key not in `keys`, or leaves one of them empty. One reader for every table of
// named model variables (checkpoint intervals, a job's other operating points).
std::vector<std::string> bound_variable_names(const std::string& toml_text, const std::string& origin, const std::string& table,
                                              std::initializer_list<const char*> keys, const std::string& purpose);
// Parses a bindings file (exposed for tests); every role the engine uses must be bound exactly once.
std::vector<ModelVariable> parse_model_inputs(const std::string& toml_text, const std::string& origin);


// Map resolved model variables (each in its listed working unit) to inputs. Each throws std::invalid_argument naming every
// missing required variable, every unknown name and every value outside its domain; variables of the
// other scope are ignored.
WorkloadInputs workload_from_values(const std::map<std::string, double>& resolved);
FacilityInputs facility_from_values(const std::map<std::string, double>& resolved);
SimInputs inputs_from_values(const std::map<std::string, double>& resolved);

}  // namespace gs::sim
