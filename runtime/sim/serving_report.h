// Presents a serving simulation (serving_scenario.h): the JSON `simulate --serving` prints (its text is
// runtime/present/sim.h), and its per-request timeline. The JSON is canonical and holds no wall-clock data, so a seed gives the
// same bytes; a cost or energy per token with no tokens served is null.
#pragma once

#include <string>

#include "runtime/research/canonical_json.h"
#include "runtime/sim/serving_scenario.h"
#include "runtime/sim/timeline.h"

namespace gs::sim {

research::Json serving_result_json(const ServingSimResult& r);
// One row per request: replica, arrival, first token, finish (seconds), prompt and output tokens, TTFT, TPOT.
std::string serving_timeline_text(const ServingSimResult& r, TimelineFormat format);

}  // namespace gs::sim
