#include "runtime/present/serve.h"

namespace gs::present {

std::string serve_event_text(const serve::ServeEvent& e) {
  switch (e.stage) {
    case serve::ServeStage::exporting: return "exporting the observatory for the default preset into " + e.site_dir + " ...\n";
    case serve::ServeStage::listening:
      return "serving the observatory at " + e.url + "  (JSON API under /api/, GET /api/health lists it; Ctrl-C stops)\n";
    case serve::ServeStage::exposed: return "warning: --bind " + e.bind + " lets other machines reach this server; it has no authentication\n";
    case serve::ServeStage::stopped: return "stopped\n";
  }
  return "";
}

bool serve_event_on_stdout(const serve::ServeEvent& e) { return e.stage == serve::ServeStage::listening; }

}  // namespace gs::present
