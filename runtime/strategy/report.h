// Presentation of a strategy search for `gpu-stack plan`: text for people, JSON for programs.
#pragma once

#include <string>

#include "runtime/registry.h"
#include "runtime/strategy/search.h"

namespace gs::strategy {

std::string plan_text(const Registry& reg, const StrategySpace& space, const StrategyResult& result);
std::string plan_json(const Registry& reg, const StrategySpace& space, const StrategyResult& result);

}  // namespace gs::strategy
