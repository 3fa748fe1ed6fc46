#pragma once
// spawn.policy donor_pull (docs/spawn.md "Spawn policies"; the table of
// roles/trainer/spawn/spawn_policy.h; torchgfn tutorials/examples/multinode/spawn_policy.py,
// AsyncSelectiveAveragingPolicympi4pyV2): every
// agent exposes its flat parameters in a one-sided window (transport/parameter_window.h),
// refreshed every iteration; at every train.average_every iteration an agent asks itself
// whether it is dying (runtime/distributed/spawn/donor_pull.h: age, threshold or
// worst_ratio) and if so reads k random donors' windows without their participation,
// averages them (the mean), blends with its own by spawn.momentum, restarts its optimizer
// (hooks) and, in age mode, draws a new maximum age.
//
// Window layout, float32: [0] the iteration the values are from, [1] the agent's metric,
// [2, 2 + model size) the parameters in model order (combine.h flatten_parameters).
//
// Collective over the agent group: the constructor (window creation, then a barrier after
// the first exposure so no read sees an empty window), restore_state and finish() / close().
// expose(), step() and after_step() never wait for another member's participation. Not thread-safe.
// Errors: TransportError (the group is not an mpi-backend group, backend failures),
// std::invalid_argument (options).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/spawn/spawn_agent.h"
#include "roles/trainer/spawn/spawn_policy.h"

namespace gfn::transport {
class Group;
class ParameterWindow;
}  // namespace gfn::transport

namespace gfn::roles {

struct SpawnState;  // roles/trainer/spawn/spawn_state.h

class DonorPullPolicy final : public SpawnPolicy {
 public:
  /// Floats before the parameters in each window: the iteration and the metric.
  static constexpr std::size_t kHeader = 2;

  /// Decision points every config.train.average_every iterations, with config.spawn.
  /// agent.seed: donor and maximum-age draws. Exposes the initial parameters as iteration
  /// 0. Collective over the agent group. Throws transport::TransportError when the group is
  /// not an mpi-backend group (transport/parameter_window.h).
  DonorPullPolicy(const roles::ExperimentConfig& config, SpawnAgent agent);
  ~DonorPullPolicy() override;

  /// Every iteration: the metric, step() at a decision point, then expose(). Always true.
  bool after_step(std::int64_t iteration) override;
  std::string save_state(std::int64_t iteration) override;
  /// Resume: the saved state, then, as restore() says, a collective over the agent group.
  void restore_state(const std::string& bytes, std::int64_t iteration) override;
  /// close().
  void finish(std::int64_t iteration) override;
  const std::vector<SpawnEvent>& events() const override { return events_; }

  /// Exposes the parameters as they are after iteration `iteration`, with `metric`.
  void expose(std::int64_t iteration, double metric);

  /// Decision point `iteration` with this agent's `metric`: pulls and respawns if it is
  /// dying; records a SpawnEvent either way. Returns true on a respawn. Call expose()
  /// afterwards so the others see the new parameters.
  bool step(std::int64_t iteration, double metric);

  /// Frees the window (collective over the agent group; idempotent).
  void close();

  /// Checkpoints (roles/trainer/spawn/spawn_state.h): this agent's state, and its
  /// restoration on a resumed run, after the Learner's parameters are restored: redraws the
  /// maximum age for the restored replacement count, exposes the parameters as those of
  /// `iteration` with `metric`, then waits for every member (collective over the agent
  /// group, like the constructor, so no read sees a window of the fresh initialisation).
  SpawnState state() const;
  void restore(SpawnState state, std::int64_t iteration, double metric);

  std::int64_t times_replaced() const { return times_replaced_; }
  /// Age mode: the current maximum age; the iteration of the last respawn (0: none).
  std::int64_t max_age() const { return max_age_; }
  std::int64_t last_respawn() const { return last_respawn_; }

 private:
  /// Whether this agent is dying at event.iteration (runtime/distributed/spawn/donor_pull.h);
  /// fills event.metrics (the others' read from their windows in worst_ratio mode).
  bool dying(SpawnEvent& event, double metric);
  /// Reads the drawn donors' windows into event (donors, weights, their iterations), and
  /// replaces the parameters by the blend of their mean (hooks around it).
  void pull(SpawnEvent& event);

  dist::spawn::SpawnOptions options_;
  std::int64_t every_;
  SpawnAgent agent_;
  std::vector<at::Tensor>& parameters_;  // agent_.parameters
  transport::Group& agents_;
  std::uint64_t seed_;
  const SpawnHooks& hooks_;  // agent_.hooks
  std::int64_t model_size_ = 0;
  std::unique_ptr<transport::ParameterWindow> window_;
  std::vector<float> staging_;  ///< header + flat parameters, for expose()
  std::int64_t max_age_ = 0;
  std::int64_t last_respawn_ = 0;
  std::int64_t times_replaced_ = 0;
  std::vector<SpawnEvent> events_;
};

}  // namespace gfn::roles
