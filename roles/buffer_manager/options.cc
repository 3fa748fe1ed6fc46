// buffer_manager_options: the buffer manager's options from the experiment (roles/run_job.cc).
#include <memory>

#include "roles/buffer_manager/buffer_manager.h"
#include "roles/buffer_manager/mode_predicate.h"
#include "runtime/checkpoint/store.h"
#include "runtime/gfn/env/catalog.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"

namespace gfn::roles {

buffer::ModesScorerOptions modes_scorer_options(const roles::BufferOptions& buffer) {
  buffer::ModesScorerOptions so;
  so.w_retained = buffer.score_w_retained;
  so.w_novelty = buffer.score_w_novelty;
  so.w_reward = buffer.score_w_reward;
  so.w_mode_bonus = buffer.score_w_mode_bonus;
  so.p_norm = buffer.score_p_norm;
  so.novelty = buffer.score_novelty;
  so.cdist_max_bytes = static_cast<std::size_t>(buffer.score_cdist_max_bytes);
  so.ema_decay = buffer.score_ema_decay;
  return so;
}

BufferManagerOptions buffer_manager_options(const roles::ExperimentConfig& config, int rank,
                                            int coordinator_rank) {
  const auto& b = config.buffer;
  BufferManagerOptions options;
  options.capacity = b.capacity;
  options.coordinator_rank = coordinator_rank;
  options.idle_timeout_s = config.transport.timeout_s;
  options.store = b.store;
  options.baseline = {b.baseline, b.baseline_percentile, b.baseline_ema_decay};
  options.rate_limiter = {b.samples_per_insert, b.min_size_to_sample, b.rate_error_buffer};
  options.seed = config.train.seed + static_cast<std::uint64_t>(rank);
  options.priority_exponent = b.priority_exponent;
  if (b.remote_sampler == buffer::SamplerKind::kRank) options.rank_weight = b.rank_weight;
  // A continuous environment (Box): float32 states without trajectories, no actions to check.
  if (config.env.plugin.empty() && core::is_continuous_environment(config.env.name)) {
    options.state_dtype = buffer::StateDtype::kFloat32;
    options.float_mode_hits = environment_float_mode_hits(config.env);
  } else {
    options.n_actions = core::make_environment(config.env)->n_actions();
  }
  options.baseline_report_interval = b.baseline_report_interval;
  options.baseline_tolerance = b.baseline_tolerance;
  options.scorer = std::make_shared<buffer::ModesScorer>(modes_scorer_options(b));
  options.checkpoint_root = checkpoint::checkpoints_root(config.output.dir);
  return options;
}

}  // namespace gfn::roles
