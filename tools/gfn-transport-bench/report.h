#pragma once
// Printing of gfn-transport-bench (nccl-tests style: '#' comment lines, one row per
// size printed as soon as it is measured) and the transport goals evaluated on the
// figures of the same run. Rank 0 only; not thread-safe (writes stdout).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

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
  SubmissionShape shape;
  std::string command_line;
  std::vector<std::string> environment;             ///< machine and MPI settings, one line each
  std::map<std::string, std::string> descriptions;  ///< method name -> what it calls
};

/// Figures of one size: method name -> measurement (only the methods that ran).
using SizeRow = std::map<std::string, Measurement>;

/// One transport goal and its value in this run.
struct GoalResult {
  std::string name;        ///< e.g. "small-message round trip"
  std::string criterion;   ///< e.g. "mpi / raw-mpi median round trip <= 2.00x for sizes <= 4 KiB"
  bool evaluated = false;  ///< false when the run had no figure for it
  bool pass = false;
  std::string worst;           ///< the worst value and where, e.g. "1.31x at 512 B"
  bool informational = false;  ///< printed as "info", never fails the run
};

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
/// then one informational line: the bandwidth share of mpi-fresh (plain recv).
std::vector<GoalResult> evaluate_goals(const std::map<std::size_t, SizeRow>& sweep,
                                       const std::map<std::string, Measurement>& submission);
/// Prints the goals and the correctness total ("# Out of bounds values : N OK").
void print_goals(const std::vector<GoalResult>& goals, std::int64_t wrong, std::int64_t checked);

/// "512 B", "4 KiB", "64 MiB".
std::string format_bytes(std::size_t bytes);

}  // namespace gfn::tbench
