// `gpu-stack serve`: the observatory's static site and the JSON API of runtime/serve/api.h over HTTP
// (cpp-httplib, in a module server.cpp loads when a server starts: http_backend.h).
#pragma once

#include <cstddef>
#include <ostream>
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

// Serves until SIGINT or SIGTERM, then returns 0 (the temporary site, if any, is removed). Prints the
// address on `out` once it listens. Throws std::runtime_error on bad options (a missing --site folder, a
// port in use), before serving.
int serve(const Registry& reg, const ServeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace gs::serve
