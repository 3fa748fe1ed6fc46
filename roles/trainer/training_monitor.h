#pragma once
// What a trainer shows and writes while it trains (step 4 of roles/trainer/trainer.h; README
// "The run directory and plots"). Trainer-group rank 0 (the leader) validates every
// validation.interval iterations and at the last one (runtime/gfn/validation.h), writing a
// metrics.csv row, a "validation at iteration" line and, for a continuous environment with a
// target, samples/validation_<iteration>.npy (runtime/output/validation_samples.h); at the last
// iteration the final metrics (FinalMetrics, logp_logr.csv); every output.log_every
// iterations a training.csv row and an "iteration i/N" line; the progress bar or lines
// (output.progress, runtime/output/progress.h). The other trainers write nothing and record
// 0 s of "validate", so that the time they wait for the leader shows in the load-imbalance
// report. On resume the CSV rows and sample files written after the checkpoint are dropped
// (they are written again); a fresh run removes a previous run's sample files.
//
// Not thread-safe. Blocking file I/O; errors: std::runtime_error when a file cannot be
// written.

#include <cstdint>
#include <optional>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/step_timer.h"
#include "roles/trainer/trainer.h"
#include "runtime/output/progress.h"
#include "runtime/output/run_output.h"

namespace gfn::core {
class Agent;
class VisitedTerminatingStates;
struct IterationResult;
}  // namespace gfn::core
namespace gfn::timing {
class TimingTable;
}

namespace gfn::roles {

class TrainingMonitor {
 public:
  /// On the leader: creates output.dir, on resume (`resumed_at` >= 0, the checkpoint's
  /// iteration) drops the CSV rows after it, then opens metrics.csv, training.csv (appending
  /// when resumed) and the progress reporter. On the others: nothing.
  TrainingMonitor(const roles::ExperimentConfig& config, bool leader, std::int64_t resumed_at,
                  timing::TimingTable* timing);

  /// After iteration `iteration` trained on `step`: the validation when due, the
  /// training.csv row and the "iteration" line when due (above). `t_start`: the loop's start
  /// (elapsed_s columns); `last_loss`: the loss of `step`; `visited`: l1_visited's window
  /// (null: none). Validation at the last iteration sets result.final_metrics.
  void after_step(std::int64_t iteration, const core::IterationResult& step, core::Agent& agent,
                  const core::VisitedTerminatingStates* visited, TrainerClock::time_point t_start,
                  double last_loss, TrainerResult& result);
  /// The progress bar / line after iteration `iteration` (after its checkpoint, if any).
  void progress(std::int64_t iteration, const core::Agent& agent, TrainerClock::time_point t_start,
                double last_loss);
  /// End of the loop: the progress reporter's last line.
  void finish();

 private:
  bool validation_due(std::int64_t iteration) const;
  void validate(std::int64_t iteration, const core::IterationResult& step, core::Agent& agent,
                const core::VisitedTerminatingStates* visited, TrainerClock::time_point t_start,
                TrainerResult& result);
  void log_training(std::int64_t iteration, core::Agent& agent, TrainerClock::time_point t_start,
                    double last_loss);

  const roles::ExperimentConfig& config_;
  const bool leader_;
  const std::int64_t iterations_;
  timing::TimingTable* const timing_;
  std::optional<output::CsvWriter> metrics_;
  std::optional<output::CsvWriter> training_;         // every output.log_every (gfn-plot)
  std::optional<output::ProgressReporter> progress_;  // output.progress (progress.h)
};

}  // namespace gfn::roles
