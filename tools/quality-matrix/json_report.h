#pragma once
// The quality matrix in the benchmark harness's JSON report (tools/common/harness/report.h,
// gfn-quality-matrix --json FILE): what a run is, a case per cell with its figures over
// the seeds, and a goal per cell with the verdict of the table (table.h). Pure functions;
// thread-safe.

#include <vector>

#include "tools/common/harness/report.h"
#include "tools/quality-matrix/table.h"

namespace gfn::quality {

/// `base` (command line, machine) with what a run is and the seeds of the TB cells.
harness::Method matrix_method(harness::Method base, int tb_seeds);

/// One case per cell, named by its id; parameters env, loss, buffer, seeds, target bound,
/// metric, published, judged_at (a cell with our own bar: the bar, its loss windows, log_z_true
/// when it has one); figures over the
/// successful seeds (statistics: n, median, mean, stddev, ...): l1_visited_judged,
/// l1_visited_end, jsd (the cells judged on it), l1_mean_fresh, l1_exact, l1_sampled, logz_error,
/// modes_found, loss_ratio, ms_per_iteration (a figure no seed gave, or NaN on every seed, is
/// null).
std::vector<harness::Case> cell_cases(const std::vector<CellResult>& results);

/// One goal per cell: l1_visited at torchgfn's validation, or the final jsd (Cell::target.metric),
/// <= the target's bound (a cell with our own bar: learning_bar_text, the largest loss ratio as
/// value), value judged_value(), verdict from verdict(): "PASS..." kPass, "**FAIL**..." kFail,
/// "over our TB bar..." kInfo (no torchgfn target to fail), "n/a..." kNotMeasured; detail = the
/// verdict text.
std::vector<harness::Goal> cell_goals(const std::vector<CellResult>& results);

}  // namespace gfn::quality
