// The JSON API of `gpu-stack serve`, without any HTTP: a request is an endpoint name and a JSON object
// body, a reply is a status and a JSON document. Each endpoint reads the same fields as the command line's
// flags (preset, workload, assign, variant, target ...), checks them with the same library functions, so a
// bad value gets the CLI's message, and answers with the CLI's `--json` document, built by the same
// presenters. Work per request is capped (sweep points, Monte Carlo samples, simulated GPU-days).
//
// GiNaC, under the resolver and the cone builder, is not thread-safe, so model work that needs it runs
// under one lock; the server bounds how many requests may wait for it. A resolve without trace, explain
// or interval (what the page's calculator asks) is answered from a compiled cone per scenario shape on
// the request's own thread (runtime/serve/resolve_cache.h), and takes the lock only to build one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/api/session.h"
#include "runtime/registry.h"
#include "runtime/serve/resolve_cache.h"
#include "runtime/workspace.h"

namespace gs::serve {

// Caps on the work one request may ask for. Larger asks are refused with 400 and the cap in the message.
struct Limits {
  size_t sweep_points = 10000;         // grid points (or zipped pairs) per sweep
  size_t samples = 200000;             // Monte Carlo samples per uncertainty request (and resolve's interval)
  size_t sobol_samples = 20000;        // base samples per sensitivity request (N (k+2) evaluations)
  double sim_gpu_days = 2e6;           // replicas x GPUs x horizon days per simulation
  uint64_t sim_events = 20'000'000;    // events per replica
  uint32_t sim_replicas = 8;
  size_t plan_top = 100;
  size_t resolve_shapes = 256;
  size_t timeline_buckets = 2000;      // buckets per simulation_timeline window
  size_t timeline_episodes = 5000;     // interruptions listed per window         // compiled resolve cones kept (least recently used dropped first)
};

struct Reply {
  int status = 200;
  std::string body;  // a JSON document; on errors {"error": ..., "hint": ...}
};

// An error reply: `status` with {"error": message, "hint": hint}.
Reply error_reply(int status, const std::string& message, const std::string& hint);

class Api {
 public:
  // `ws.presets_dir`: the only folder presets, workloads and simulation scenarios are read from (requests
  // name them; paths are refused). `ws.image` is reported by /api/health; `ws.data_dir` holds the runs
  // `validate` reads.
  Api(const Registry& reg, const Workspace& ws, Limits limits = {});
  ~Api();

  // POST /api/<endpoint> with `body`: 200 with the answer, 400 bad input, 404 unknown endpoint.
  Reply post(const std::string& endpoint, const std::string& body) const;
  // GET /api/health: the endpoints, the caps and the image.
  Reply health() const;
  static const std::vector<std::string>& endpoints();

  const Limits& limits() const { return limits_; }

 private:
  // The scenario of a request: its preset layers from the cache (composed once, read again when a file
  // under the presets folder changes; checked at most once a second), then its assignments and selectors.
  ScenarioPoint scenario(const PresetLibrary& lib, const api::ScenarioInputs& in) const;

  const Registry& reg_;
  std::string presets_dir_, image_path_, data_dir_;
  Limits limits_;
  mutable std::mutex model_;           // GiNaC: one request's symbolic work at a time
  mutable std::mutex presets_mutex_;   // the preset cache (taken after model_ when both are held)
  struct PresetCache;
  std::unique_ptr<PresetCache> cache_;
  std::unique_ptr<struct TrackCache> tracks_;  // recovery tracks of the Simulation view, guarded by model_
  std::unique_ptr<ResolveCache> resolve_cache_;
};

}  // namespace gs::serve
