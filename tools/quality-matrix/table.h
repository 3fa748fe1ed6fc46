#pragma once
// Aggregates the runs of each quality-matrix cell and writes the markdown table (fmt).

#include <optional>
#include <string>
#include <vector>

#include "tools/quality-matrix/cells.h"
#include "tools/quality-matrix/run.h"

namespace gfn::quality {

/// All runs of one cell, in cell.seeds order (runs[i] used seed cell.seeds[i]).
struct CellResult {
  Cell cell;
  std::vector<RunOutcome> runs;
  /// The validation the verdict is taken at (torchgfn's schedule), shown in the table.
  std::optional<ValidationPoint> point;
};

/// "PASS" / "**FAIL** (...)" / "over our TB bar, no torchgfn target (...)" / "n/a (...)" of a
/// cell, like for like with torchgfn on the metric of its target (Cell::target.metric):
/// l1_visited (torchgfn's l1_dist: mean over states, empirical distribution of the terminating
/// states visited during training) AT THE VALIDATION torchgfn's test asserts on
/// (RunMetrics::judged, schedule.h), or the KDE jsd of the final validation (RunMetrics::jsd),
/// <= target.bound(); and the sampled sum-L1 (end of run) <= cell.max_sampled_l1_sum when set.
/// One judged run (a single-seed cell): judged on it (seed 1). Several judged runs (seeds):
/// judged on the MEAN over those seeds (torchgfn publishes one run, so one seed is one
/// random draw), followed by "; mean m ± sd over n seeds, seed 1 v, k/n seeds <= bound"; a seed
/// without the metric (its run failed, no judged row, jsd null) is not counted.
/// A miss says by how much (value, bound, excess in percent); it is "**FAIL**" against a
/// published torchgfn target, and "over our TB bar, no torchgfn target" for a loss without
/// one (cell.target.published false: the bar is our own, stricter check). A cell whose seed-1
/// run failed or lacks the metric (no judged row; no jsd in summary.json) FAILs, saying which. A
/// cell with our own bar (Cell::bar) is judged at the end of every seed's run, every seed run and
/// within it: "PASS (our bar): [sum-L1 exact e, ] 1/2 modes in training[, 1 in fresh samples], loss
/// ratio r[, worst of n seeds]" (the largest sum-L1 and ratio and the fewest modes over the seeds;
/// the bracketed parts when the bar has them), or "**FAIL** (our bar: seed s: what missed; seed t:
/// run failed; ...; k/n seeds within)".
std::string verdict(const CellResult& r);

/// The bar as the table and the JSON goal state it: "[sum-L1 exact ≤ x, ]≥ m mode(s) in
/// training[ and ≥ f in n fresh samples], loss ratio ≤ y (median loss, last t / first h
/// iterations)", the bracketed parts when the bar has them.
std::string learning_bar_text(const LearningBar& bar);

/// The judged value of the target's metric (l1_visited of RunMetrics::judged, or jsd) of every
/// seed that has one, seed 1 first (a cell with our own bar: the loss ratio of every successful
/// seed).
std::vector<double> judged_values(const CellResult& r);

/// The value verdict() judges: seed 1's judged value (judged_values), or with several judged
/// seeds their mean (harness::mean); a cell with our own bar: the largest loss ratio over its
/// seeds; nullopt when seed 1 failed or lacks the metric.
std::optional<double> judged_value(const CellResult& r);

/// The markdown block: a header paragraph (definitions, command), the table (one row
/// per cell, 15 columns: cell, env, loss, buffer, l1_visited at torchgfn's validation,
/// where that is ("it <ours>/<n> (torchgfn <i>), <visited> visited", or "end of run, ..."),
/// l1_visited at the end of the run, the KDE jsd at the end (the cells judged on it; "—"
/// elsewhere), torchgfn target, verdict, mean L1 of fresh samples, sum-L1 exact,
/// sum-L1 sampled, |logZ error|, ms/iteration) and notes.
std::string render_table(const std::vector<CellResult>& results, const std::string& command);

}  // namespace gfn::quality
