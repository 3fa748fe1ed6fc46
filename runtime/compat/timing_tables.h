#pragma once
// A user's own per-rank timing dictionaries as timing::TimingTable, so that
// torchgfn's report_time_info / report_load_imbalance (runtime/timing/reports.h) run on
// them: seed 003 takes `[{"step": [iter0_s, iter1_s, ...]}, ...]`, one dict per rank.
//
//   std::vector<gfn::timing::TimingTable> tables = {
//       gfn::compat::timing_table_from_steps({{"sample", {0.5, 0.4}}, {"loss", {0.1, 0.1}}}),
//       gfn::compat::timing_table_from_steps({{"sample", {0.7, 0.6}}})};  // rank 1: no "loss"
//   auto info = gfn::timing::report_time_info(tables);      // "loss": warning, 1 of 2 ranks
//   auto imb = gfn::timing::report_load_imbalance(tables);  // "loss" skipped with a warning
//
// To gather each rank's table to one rank first: timing::gather_timing_tables
// (runtime/timing/gather.h) on any group, e.g. gfn::compat::world_group().

#include <string>
#include <utility>
#include <vector>

#include "runtime/timing/timing_table.h"

namespace gfn::compat {

/// Builds a TimingTable from (step name, durations in seconds, one per iteration)
/// pairs, in the given step order. Every step must have the same number of
/// iterations (a TimingTable has one iteration count), durations must be finite and
/// >= 0, names unique. A step with no durations is not added (nothing was timed).
/// Throws std::invalid_argument naming the offending step. Pure, thread-safe.
timing::TimingTable timing_table_from_steps(
    const std::vector<std::pair<std::string, std::vector<double>>>& steps);

}  // namespace gfn::compat
