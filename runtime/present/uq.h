// Text renderers of the sweep, uncertainty and sensitivity reports (runtime/uq/commands.h): what the
// commands print without --json, quantities in each variable's display unit.
#pragma once

#include <string>

#include "runtime/registry.h"
#include "runtime/uq/commands.h"

namespace gs::present {

std::string sweep_text(const Registry& reg, const SweepReport& r);
// One note per swept input that no target reads (the command prints them on stderr).
std::string sweep_notes(const SweepReport& r);
std::string uncertainty_text(const Registry& reg, const UncertaintyReport& r);
std::string sensitivity_text(const SensitivityReport& r);

}  // namespace gs::present
