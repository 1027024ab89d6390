// Text of the server's stages (runtime/serve/server.h) as `gpu-stack serve` prints them: the address on
// stdout, the rest on stderr (serve_event_on_stdout says which).
#pragma once

#include <string>

#include "runtime/serve/server.h"

namespace gs::present {

std::string serve_event_text(const serve::ServeEvent& e);
bool serve_event_on_stdout(const serve::ServeEvent& e);

}  // namespace gs::present
