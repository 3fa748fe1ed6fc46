#include "tools/gfn-bench-manager/pool.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "roles/trainer/payload.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::mbench {

Pool sample_pool(const roles::ExperimentConfig& config, int n) {
  if (n < 1) throw std::invalid_argument("gfn-bench-manager: the pool needs >= 1 submission");
  core::Learner learner(config.env, config.model, config.train, config.train.seed,
                        buffer::ReplayOptions{}, config.engine);
  Pool pool;
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto it = learner.train_iteration(config.train.batch_size);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    protocol::Submission s;
    s.iteration = i;
    s.ndim = static_cast<std::int32_t>(it.terminating_states.size(1));
    roles::append_terminating_states(it.terminating_states, it.log_rewards, s.states,
                                     s.log_rewards);
    core::pack_trajectories(it.fresh, s.trajectories);
    pool.submissions.push_back(std::move(s));
  }
  std::sort(ms.begin(), ms.end());
  pool.trainer_ms = ms[ms.size() / 2];
  return pool;
}

}  // namespace gfn::mbench
