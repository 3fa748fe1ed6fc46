#include "runtime/buffer/options.h"

#include "runtime/config/fields.h"

namespace gfn::buffer {

const config::Fields<ReplayOptions>& replay_fields() {
  using R = ReplayOptions;
  static const auto fields =
      config::Fields<R>()
          .add("kind", &R::kind,
               "The trainer-local replay buffer: none; uniform (FIFO remover, uniform sampler); "
               "prioritized (keeps the highest rewards, samples proportionally to R); diverse "
               "(torchgfn's NormBasedDiversePrioritizedReplayBuffer: prioritized removal, "
               "uniform sampling, the diversity insert filter).",
               config::AsInvalid{})
          .add("capacity", &R::capacity,
               "Trajectories kept (action sequence, terminating state and log reward).",
               config::at_least(std::int64_t{1}), {"trajectories"})
          .add("fraction", &R::fraction,
               "Share of the batch drawn from the buffer once it holds replay.warmup "
               "trajectories (1: the whole batch, as torchgfn's train_hypergrid.py).",
               config::in_unit_interval())
          .add("cutoff", &R::cutoff,
               "diverse: an incoming terminating state is kept only if its p-norm distance to "
               "higher-reward batch items and to the buffer exceeds it (< 0: no filter).")
          .add("p_norm", &R::p_norm, "diverse: p of the Minkowski distance.", config::positive())
          .add("warmup", &R::warmup, "Trajectories the buffer must hold before replay starts.",
               config::at_least(std::int64_t{0}), {"trajectories"});
  return fields;
}

}  // namespace gfn::buffer
