// The per-event timeline and per-site utilisation of one run, as JSON Lines or CSV, for plotting a run
// (failures, detection, restarts, checkpoints, lost work) and for the observatory.
#pragma once

#include <string>

#include "runtime/sim/result.h"

namespace gs::sim {

enum class TimelineFormat { jsonl, csv };

// .csv gives CSV, anything else JSON Lines.
TimelineFormat timeline_format_for(const std::string& path);
// Every record in time order, events before utilisation samples at one instant; times in seconds. JSONL rows
// carry "record": "event" or "utilisation"; CSV uses one header with the union of the columns. A non-empty
// `run` labels every row (a "run" key, or a first CSV column) so several runs can share one file; `header`
// false leaves out the CSV header (for the second and later runs of such a file).
std::string timeline_text(const SimResult& r, TimelineFormat format, const std::string& run = "", bool header = true);

}  // namespace gs::sim
