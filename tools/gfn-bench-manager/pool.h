#pragma once
// gfn-bench-manager's submissions: full DATA payloads (terminating states, log rewards
// and the trajectories, roles/protocol/messages.h) produced by a real, training
// core::Learner on the experiment's environment, so that states, duplicates and rewards
// evolve as in a run. The same Learner's iteration times give the "full-speed trainer"
// the manager is compared with.
// Blocking, single-threaded; sets LibTorch's thread count (train.num_threads).

#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/protocol/messages.h"

namespace gfn::mbench {

struct Pool {
  std::vector<protocol::Submission> submissions;  ///< one per Learner iteration, in order
  double trainer_ms = 0;  ///< median Learner::train_iteration time (ms), one trainer
};

/// Runs `n` >= 1 iterations of Learner::train_iteration(config.train.batch_size) and
/// keeps each iteration's fresh batch as a full-payload Submission (iteration = index).
/// Throws std::invalid_argument for n < 1 or an invalid configuration.
Pool sample_pool(const roles::ExperimentConfig& config, int n);

}  // namespace gfn::mbench
