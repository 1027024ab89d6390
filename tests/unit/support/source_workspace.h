// The workspace the front end (tools/frontend/workspace_env.h) resolves for this source tree and build with
// no GSTACK_* variable set, for tests that call the libraries directly. Including this header also points
// the simulator at the source tree's bindings file, as the front end does before a command runs.
#pragma once

#include <string>

#include "runtime/sim/inputs.h"
#include "runtime/workspace.h"

namespace gs::testing {

inline Workspace source_workspace() {
  Workspace ws;
  ws.image = GSTACK_BINARY_DIR "/model.gsimg";
  ws.presets_dir = GSTACK_SOURCE_DIR "/presets";
  ws.data_dir = GSTACK_SOURCE_DIR "/data";
  ws.experiments_dir = GSTACK_SOURCE_DIR "/experiments";
  ws.site_assets_dir = GSTACK_SOURCE_DIR "/site";
  return ws;
}

inline const bool sim_bindings_set = (sim::use_model_inputs(source_workspace().sim_model_inputs()), true);

}  // namespace gs::testing
