#pragma once
// Pure timing reports over every rank's TimingTable (gathered to one rank by
// gather_timing_tables, runtime/timing/gather.h). Semantics of torchgfn's
// report_time_info and report_load_imbalance (gfn/utils/distributed.py).
// No communication; thread-safe (no shared state except spdlog warnings).

#include <string>
#include <vector>

#include "runtime/timing/timing_table.h"

namespace gfn::timing {

/// report_time_info. All durations in seconds.
struct TimeReport {
  struct StepStats {
    std::string step;
    double mean_s = 0.0;   ///< mean over iterations
    double total_s = 0.0;  ///< sum over iterations
    int iterations = 0;
  };
  struct RankStats {
    int rank = 0;
    std::vector<StepStats> steps;  ///< in the table's step order
  };
  struct AcrossRanks {
    std::string step;
    double max_total_s = 0.0;   ///< max over ranks of the rank's total
    double mean_total_s = 0.0;  ///< mean over ranks of the rank's total
    int num_ranks = 0;          ///< ranks that have the step
  };
  std::vector<RankStats> ranks;
  /// One row per step (first-seen order over ranks 0, 1, ...). As in torchgfn, a
  /// step missing on some ranks is aggregated over the ranks that have it
  /// (num_ranks says how many) and a warning is logged.
  std::vector<AcrossRanks> across;
  int world_size = 0;

  /// Aligned table: per-rank section, then max and mean across ranks.
  std::string to_string() const;
};

/// report_load_imbalance. All durations in seconds.
struct LoadImbalanceReport {
  struct StepImbalance {
    std::string step;
    /// Sum over iterations of the mean over ranks (the work every rank did).
    double useful_s = 0.0;
    /// Sum over iterations of (max over ranks - mean over ranks): time the average
    /// rank waits for the slowest one. After a compaction (TimingTable::max_rows) the max
    /// is taken per row, a block of iterations_per_row() iterations, which can only
    /// understate the waiting of single iterations.
    double waiting_s = 0.0;
    int iterations = 0;
  };
  std::vector<StepImbalance> steps;
  double total_useful_s = 0.0;   ///< sum over reported steps
  double total_waiting_s = 0.0;  ///< sum over reported steps
  /// Steps left out: missing on some rank, or with different iteration counts.
  std::vector<std::string> skipped;

  /// Aligned table: step, useful work, waiting, waiting %, then the totals.
  std::string to_string() const;
};

/// `tables[i]` is the table of rank `rank_labels[i]` (or of rank i when
/// `rank_labels` is empty). Throws std::invalid_argument if `rank_labels` is given
/// with a size different from `tables`.
TimeReport report_time_info(const std::vector<TimingTable>& tables,
                            const std::vector<int>& rank_labels = {});

/// Only steps present on every rank with the same number of iterations (and rows) are
/// reported; the others are listed in `skipped` with a spdlog warning naming them.
/// Steps are in first-seen order over ranks 0, 1, ....
LoadImbalanceReport report_load_imbalance(const std::vector<TimingTable>& tables);

}  // namespace gfn::timing
