#include "tools/gfn-bench-manager/pool.h"

#include <stdexcept>
#include <utility>

#include "roles/trainer/payload.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/trajectory_ops.h"
#include "runtime/process/threads.h"
#include "tools/common/harness/timing.h"

namespace gfn::mbench {

Pool sample_pool(const roles::ExperimentConfig& config, int n) {
  if (n < 1) throw std::invalid_argument("gfn-bench-manager: the pool needs >= 1 submission");
  core::Learner learner(config.env, config.model, config.train, config.train.seed,
                        buffer::ReplayOptions{}, config.engine);
  runtime::set_thread_counts(learner.plan().threads);
  Pool pool;
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const harness::Stopwatch watch;
    const auto it = learner.train_iteration(config.train.batch_size);
    ms.push_back(1e3 * watch.seconds());
    protocol::Submission s;
    s.iteration = i;
    s.ndim = static_cast<std::int32_t>(it.terminating_states.size(1));
    roles::append_terminating_states(it.terminating_states, it.log_rewards, s.states,
                                     s.log_rewards);
    core::pack_trajectories(it.fresh, s.trajectories);
    pool.submissions.push_back(std::move(s));
  }
  pool.trainer_ms = harness::median(std::move(ms));
  return pool;
}

}  // namespace gfn::mbench
