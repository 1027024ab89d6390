// serve: the observatory and the JSON API over HTTP until SIGINT or SIGTERM (runtime/serve).
#include <iostream>

#include "runtime/present/serve.h"
#include "runtime/serve/server.h"
#include "tools/gpu-stack/commands.h"

namespace gs::cli {

void add_serve_command(Cli& cli) {
  auto opt = state<gs::serve::ServeOptions>();
  const Common& common = cli.common;
  auto* serve = cli.app.add_subcommand("serve", "Serve the observatory and a JSON API (resolve, sweep, uncertainty, sensitivity, plan, validate, simulate) over HTTP");
  serve->add_option("--port", opt->port, "TCP port (default 8765; 0 picks a free one, printed)")->check(CLI::Range(0, 65535));
  serve->add_option("--bind", opt->bind, "address to listen on (default 127.0.0.1, this machine only)");
  serve->add_option("--site", opt->site_dir, "exported site to serve (default: export the default preset's into a temporary folder)");
  serve->add_option("--max-jobs", opt->max_jobs, "API requests running or waiting at once; more get 503 (default 4)")->check(CLI::Range(1u, 256u));
  serve->add_option("--max-body", opt->max_body, "largest request body in bytes; larger get 413 (default 65536)")
      ->check(CLI::Range(size_t(64), size_t(16) << 20));
  add_common(serve, cli.common);
  cli.on_parsed(serve, [opt, &common] {
    gs::serve::ServeOptions o = *opt;
    gs::Registry reg = load_registry(common);
    o.workspace = workspace(common);
    gs::serve::serve(reg, o, [](const gs::serve::ServeEvent& e) {
      // The address goes to stdout at once: a script waiting for it reads it while the server runs.
      if (gs::present::serve_event_on_stdout(e)) std::cout << gs::present::serve_event_text(e) << std::flush;
      else std::cerr << gs::present::serve_event_text(e);
    });
    return 0;
  });
}

}  // namespace gs::cli
