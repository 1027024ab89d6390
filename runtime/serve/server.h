// `gpu-stack serve`: the observatory's static site and the JSON API of runtime/serve/api.h over HTTP
// (cpp-httplib, in a module server.cpp loads when a server starts: http_backend.h).
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/registry.h"
#include "runtime/serve/api.h"

namespace gs::serve {

struct ServeOptions {
  std::string bind = "127.0.0.1";
  int port = 8765;                  // 0: any free port (the printed address says which)
  std::string site_dir;             // empty: export the site for the default preset into a temporary folder
  unsigned max_jobs = 4;            // API requests running or waiting at once; more get 503
  size_t max_body = 64 * 1024;      // bytes of one request body; more get 413
  Limits limits;
  Workspace workspace;  // the image, the presets and the site's files (runtime/workspace.h)
};

// What the server tells its operator as it goes (the command prints each: runtime/present/serve.h).
enum class ServeStage {
  exporting,  // the default preset's site is being exported into `site_dir`
  listening,  // the server answers at `url`
  exposed,    // it listens on `bind`, an address other machines reach, without authentication
  stopped,    // a signal stopped it
};
std::string to_string(ServeStage s);  // "exporting", "listening", "exposed", "stopped"
struct ServeEvent {
  ServeStage stage = ServeStage::listening;
  std::string site_dir, url, bind;
};
void to_json(nlohmann::ordered_json& j, const ServeEvent& e);

// Serves until SIGINT or SIGTERM, then returns (the temporary site, if any, is removed), telling
// `report` each stage. Throws std::runtime_error on bad options (a missing --site folder, a port in use),
// before serving.
void serve(const Registry& reg, const ServeOptions& options, const std::function<void(const ServeEvent&)>& report);

}  // namespace gs::serve
