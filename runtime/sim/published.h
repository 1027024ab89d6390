// Sets a run next to the published figures its scenario declares ([[published]]) and next to the counts its
// failure data were taken from. Nothing here feeds back into the run: the comparison is a report, never a fit.
#pragma once

#include <string>

#include "runtime/research/canonical_json.h"
#include "runtime/sim/result.h"
#include "runtime/sim/scenario.h"

namespace gs::sim {

// Empty when the scenario declares no published figure.
PublishedComparison compare_with_published(const Scenario& sc, const SimResult& r);
research::Json comparison_to_json(const PublishedComparison& c);

}  // namespace gs::sim
