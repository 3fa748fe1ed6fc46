#pragma once
// torchgfn's validation schedule, so that each quality-matrix cell is judged on the same
// validation as the torchgfn test its target comes from (tutorials/examples/
// test_scripts.py returns the l1_dist of the LAST validation its training script ran).
//
// torchgfn's scripts loop `for iteration in range(n_iterations)` (0-based) and validate
// after the iteration's optimizer step, once its terminating states joined the visited
// ones, when `iteration % validation_interval == 0` (interval 100 in test_scripts.py);
// train_hypergrid.py also validates at `iteration == n_iterations - 1`,
// train_discreteebm.py does not (its test_discreteebm value comes from iteration 100 of
// 125: 101 x 128 = 12,928 visited states). gfn-train counts iterations from 1
// (roles/trainer/trainer.cc), so torchgfn's iteration i is gfn-train's i + 1 with the same
// number of visited states, and gfn-train validates when it % validation.interval == 0
// and at its last iteration; its metrics.csv has one row per validation.

#include <cstdint>
#include <optional>
#include <string>

namespace gfn::quality {

/// When a torchgfn training script validates.
struct TorchgfnSchedule {
  std::string script;           ///< e.g. "train_discreteebm.py"
  std::int64_t interval = 100;  ///< validation_interval (test_scripts.py CommonArgs: 100)
  bool also_last = false;       ///< also validates at the last iteration (n_iterations - 1)
};

/// train_hypergrid.py: `iteration % validation_interval == 0 or iteration == n_iterations - 1`.
TorchgfnSchedule hypergrid_schedule();
/// train_discreteebm.py: `iteration % validation_interval == 0` only.
TorchgfnSchedule discrete_ebm_schedule();

/// The validation whose l1_dist torchgfn's test asserts on: the last one of the loop.
struct ValidationPoint {
  std::int64_t torchgfn_iteration = 0;  ///< 0-based loop index in torchgfn's script
  std::int64_t iteration = 0;           ///< gfn-train's 1-based iteration (= torchgfn's + 1)
  std::int64_t n_iterations = 0;        ///< iterations of the run
  /// Terminating states in the visited window then: min(iteration * batch_size, window),
  /// single trainer.
  std::int64_t n_visited = 0;
  bool is_last() const { return iteration == n_iterations; }
};

/// The last validation of `s` in a loop of n_iterations iterations of batch_size
/// trajectories with a visited-states window of `window` (validation_samples). Pure.
/// Throws std::invalid_argument when n_iterations, s.interval, batch_size or window < 1.
ValidationPoint last_validation(const TorchgfnSchedule& s, std::int64_t n_iterations,
                                std::int64_t batch_size, std::int64_t window);

/// The validation.interval that makes gfn-train validate at p.iteration: p.iteration
/// itself (it then validates at p.iteration, its multiples and the last iteration), or
/// nullopt when p is the last iteration (gfn-train always validates there).
std::optional<std::int64_t> interval_for(const ValidationPoint& p);

/// One validation row of gfn-train's metrics.csv.
struct MetricsRow {
  std::int64_t iteration = 0;
  std::int64_t trajectories = 0;
  double l1_visited = 0;
  std::optional<std::int64_t> n_visited;  ///< absent in metrics.csv written before the column
};

/// Reads the row of metrics.csv `path` whose iteration is `iteration` (CSV split with
/// boost::tokenizer). Throws std::runtime_error naming the file when it cannot be opened,
/// the header lacks iteration / trajectories / l1_visited, a field is not a number, or no
/// row has that iteration (the run did not validate there).
MetricsRow read_metrics_row(const std::string& path, std::int64_t iteration);

/// Checks that `row` is the validation `p` of a single-trainer run with batch_size:
/// same iteration, trajectories == iteration * batch_size, and n_visited == p.n_visited
/// when the row has it. Throws std::runtime_error saying which value differs.
void check_row(const MetricsRow& row, const ValidationPoint& p, std::int64_t batch_size);

}  // namespace gfn::quality
