#pragma once
// timing.json: the time and load-imbalance reports of the trainers (runtime/timing/
// reports.h) as JSON, read by tools/gfn-plot for its stacked bar chart. Layout:
//   {"trainers": {"ranks": [{"rank": r, "steps": {"sample": total_s, ...}}, ...],
//                 "step_order": ["sample", ...],
//                 "load_imbalance": [{"step": s, "useful_s": u, "waiting_s": w}, ...]},
//    "buffer_managers": {"ranks": [...], "step_order": [...]}}   (when there are managers)
// Durations in seconds (totals over iterations). Pure functions; thread-safe.

#include <nlohmann/json.hpp>

#include "runtime/timing/reports.h"

namespace gfn::output {

/// {"ranks": [...], "step_order": [...]} of one role's time report.
nlohmann::json time_report_json(const timing::TimeReport& report);

/// The "load_imbalance" list of a load-imbalance report.
nlohmann::json load_imbalance_json(const timing::LoadImbalanceReport& report);

}  // namespace gfn::output
