#pragma once
// Printing of gfn-transport-bench (nccl-tests style: '#' comment lines, one row per
// size printed as soon as it is measured), the transport goals evaluated on the figures
// of the same run, and the cases of its JSON report (tools/common/harness/report.h).
// Rank 0 only; not thread-safe (writes stdout).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tools/common/harness/report.h"
#include "tools/gfn-transport-bench/submission.h"
#include "tools/gfn-transport-bench/sweep.h"

namespace gfn::tbench {

/// Method names of the sweep, in table order. The goals compare kOursMpi (recv_into into
/// one reused buffer, as raw-mpi reuses its buffers) with kRawMpi; kOursMpiFresh (plain
/// recv, a fresh payload per message) is reported alongside, not a goal.
inline const std::string kRawMpi = "raw-mpi";
inline const std::string kOursMpi = "mpi";
inline const std::string kOursMpiFresh = "mpi-fresh";
inline const std::string kRawGloo = "raw-gloo";
inline const std::string kOursTorch = "torch";
inline const std::vector<std::string> kSweepMethods = {kRawMpi, kOursMpi, kOursMpiFresh, kRawGloo,
                                                       kOursTorch};

/// Names of the submission-pattern rows.
inline const std::string kSubmissionMpi = "submission/mpi";
inline const std::string kSubmissionTorch = "submission/torch";

/// What the header prints about the run.
struct RunInfo {
  std::size_t min_bytes = 0;
  std::size_t max_bytes = 0;
  std::size_t factor = 2;
  LoopOptions loop;
  harness::Method method;                           ///< run_method(): timing, machine, command
  std::string mpi;                                  ///< MPI library and its waiting mode
  std::map<std::string, std::string> descriptions;  ///< method name -> what it calls
};

/// `base` (command line, machine; harness::Front::method) with what is timed, the counts
/// of `loop` and the formulas of the tables.
harness::Method run_method(harness::Method base, const LoopOptions& loop);

/// Figures of one size: method name -> measurement (only the methods that ran).
using SizeRow = std::map<std::string, Measurement>;

/// The first line (nccl-tests style), the method statement, the MPI line, the methods.
void print_header(const RunInfo& info);
/// Column heads of the sweep table.
void print_sweep_head();
/// One row of the sweep table.
void print_sweep_row(std::size_t bytes, const SizeRow& row);
/// The submission-pattern table: `rows` maps kSubmissionMpi / kSubmissionTorch, and
/// kRawMpi / kOursMpi / kRawGloo / kOursTorch (plain round trips at the same ping / pong
/// byte counts) to figures.
void print_submission(const SubmissionShape& shape, const SubmissionBytes& bytes,
                      const std::map<std::string, Measurement>& rows);

/// The three transport goals from the sweep rows (sizes -> row) and the submission rows,
/// then one informational line (verdict "info"): the bandwidth share of mpi-fresh (plain
/// recv). A goal's value is the worst ratio of the run; its detail says where.
std::vector<harness::Goal> evaluate_goals(const std::map<std::size_t, SizeRow>& sweep,
                                          const std::map<std::string, Measurement>& submission);
/// Prints the goals and the correctness total ("# Out of bounds values : N OK").
void print_goals(const std::vector<harness::Goal>& goals, std::int64_t wrong, std::int64_t checked);

/// The figures of the run as cases of the JSON report: "<method>/<bytes>" per sweep size
/// and method, and one per submission-pattern row (kSubmissionMpi, kSubmissionTorch, and
/// "submission-bytes/<method>" for the plain round trips of the same byte counts); each with
/// round_trip_us (statistics), gb_per_s (sweep only), wrong and checked payloads.
std::vector<harness::Case> report_cases(const std::map<std::size_t, SizeRow>& sweep,
                                        const std::map<std::string, Measurement>& submission);

/// "512 B", "4 KiB", "64 MiB".
std::string format_bytes(std::size_t bytes);

}  // namespace gfn::tbench
