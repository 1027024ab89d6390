// Text renderers of the analysis commands' reports (runtime/analysis): root-debt, verify, scenario-audit
// and next-work, as the commands print them without --json.
#pragma once

#include <string>

#include "runtime/analysis/audit.h"
#include "runtime/analysis/next_work.h"
#include "runtime/analysis/root_debt.h"
#include "runtime/analysis/verify.h"

namespace gs::present {

std::string root_debt_text(const RootDebtReport& r);
std::string verify_text(const VerifyReport& r);
// --missing-families lists each preset's missing families instead of counting them.
std::string scenario_audit_text(const ScenarioAuditReport& r, bool missing_families);
std::string next_work_text(const NextWorkReport& r);

}  // namespace gs::present
