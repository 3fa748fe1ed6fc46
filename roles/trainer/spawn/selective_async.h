#pragma once
// spawn.policy selective, spawn.mode async (docs/spawn.md "Spawn policies"; the table of
// roles/trainer/spawn/spawn_policy.h). No barrier:
//   - at a decision point (every train.average_every iteration) a member sends its local
//     metric to every other member of its agent group (SPAWN_METRIC, tag kSpawn, isend)
//     and trains on;
//   - at every iteration boundary it receives what has arrived on kSpawn without waiting;
//     once every member's metric of the oldest decision point is in, it takes the same
//     decision as the others (runtime/distributed/spawn/decision.h, in iteration order,
//     runtime/distributed/spawn/async_rounds.h);
//   - a donor then sends its current flat parameters to every replaced member
//     (SPAWN_PARAMS, isend), tagged with the iteration they are from;
//   - a replaced member applies momentum * own + (1 - momentum) * sum_d w_d * params_d at
//     the first iteration boundary where every donor's parameters have arrived, restarts
//     its optimizer (hooks) and records when and from which donor iterations.
// reset_weights needs no donors: the replaced member re-initialises when it decides.
//
// Deadlock freedom: during training nothing here blocks (receives poll with a zero
// timeout, sends are isend), so the replay-buffer traffic (SUBMIT / SCORE with the
// managers, on other tags) and the trainers' stop agreement (an all-reduce at averaging
// iterations, roles/trainer/trainer.cc) proceed as without a spawn policy. finish() (also
// inside save_state) blocks, but only for messages already sent: every member posts the
// same decision points (the trainers stop at the same iteration, also on SIGTERM), and a
// donor's SPAWN_PARAMS depend only on metrics, never on a replacer's progress.
//
// torchgfn: tutorials/examples/multinode/spawn_policy.py AsyncSelectiveAveragingPolicy
// (there a background thread; here the trainer polls at its iteration boundaries).
//
// Not thread-safe (the trainer's thread). Errors: transport::TransportError / TimeoutError
// (finish() waits at most transport.timeout_s per message), transport::MessageError for a
// message that is not SPAWN_METRIC / SPAWN_PARAMS or is inconsistent (wrong sizes, unknown
// decision point).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "roles/experiment/experiment_config.h"
#include "roles/trainer/spawn/spawn_agent.h"
#include "roles/trainer/spawn/spawn_policy.h"
#include "runtime/distributed/spawn/async_rounds.h"
#include "runtime/distributed/spawn/decision.h"
#include "transport/send_handle.h"

namespace gfn::transport {
class Group;
class Transport;
}  // namespace gfn::transport

namespace gfn::roles {

struct SpawnState;  // roles/trainer/spawn/spawn_state.h

class SelectiveAsyncPolicy final : public SpawnPolicy {
 public:
  /// Decision points every config.train.average_every iterations, with config.spawn; every
  /// wait of finish() bounded by config.transport.timeout_s. The agent group must contain
  /// this rank (else transport::TransportError); a group of one never replaces (nothing is
  /// sent). Sends and receives nothing.
  SelectiveAsyncPolicy(const roles::ExperimentConfig& config, SpawnAgent agent);

  /// post(iteration, metric()) at a decision point, then progress(iteration). Non-blocking;
  /// always true.
  bool after_step(std::int64_t iteration) override;
  /// finish(iteration), then the state's bytes.
  std::string save_state(std::int64_t iteration) override;
  void restore_state(const std::string& bytes, std::int64_t iteration) override;
  const std::vector<SpawnEvent>& events() const override { return events_; }

  /// Decision point `iteration` (increasing) with this member's `local_metric` (higher is
  /// better): records it and sends it to the other members. Non-blocking.
  void post(std::int64_t iteration, double local_metric);

  /// Iteration boundary after iteration `iteration`: takes in every SPAWN_* message that
  /// has arrived, decides the complete decision points, sends this donor's parameters,
  /// applies the replacements whose donors have all arrived. Non-blocking.
  void progress(std::int64_t iteration);

  /// End of training, or a checkpoint, after iteration `iteration`: as progress(), but
  /// waits (transport timeout per message) until every decision point up to `iteration` is
  /// decided and applied, then for this member's sends. Every member must call it after the
  /// same post() calls. Metrics of later decision points that faster members sent after
  /// their own finish() stay for the next progress().
  void finish(std::int64_t iteration) override;

  std::int64_t times_replaced() const { return times_replaced_; }
  /// Decision points posted but not yet decided, plus replacements not yet applied.
  bool idle() const { return rounds_.empty() && awaiting_.empty(); }

  /// Checkpoints (roles/trainer/spawn/spawn_state.h): this member's state after iteration
  /// `iteration` once drained (finish(iteration) first: std::logic_error while a decision
  /// point up to `iteration`, a replacement or a send is pending; later points' metrics are
  /// not state: after a resume every member posts them again), and its restoration (before
  /// the first post() of a resumed run).
  SpawnState state(std::int64_t iteration) const;
  void restore(SpawnState state);

 private:
  struct Awaiting {  ///< a replacement of this member waiting for its donors
    std::size_t event = 0;
    dist::spawn::Decision decision;
  };
  struct Arrived {  ///< one donor's SPAWN_PARAMS
    std::int64_t sent_iteration = 0;
    std::vector<float> parameters;
  };

  /// Receives one message on kSpawn within `timeout_s` (0: only if already there);
  /// false if none.
  bool receive_one(double timeout_s);
  void decide_ready(std::int64_t iteration);
  void apply_ready(std::int64_t iteration);
  void reap_sends();

  dist::spawn::SpawnOptions options_;
  std::int64_t every_;
  SpawnAgent agent_;
  std::vector<at::Tensor>& parameters_;  // agent_.parameters
  transport::Transport& transport_;
  transport::Group& agents_;
  double timeout_s_;
  const SpawnHooks& hooks_;  // agent_.hooks
  std::int64_t model_size_ = 0;
  dist::spawn::MetricRounds rounds_;
  std::int64_t last_replacement_ = -1;
  std::int64_t times_replaced_ = 0;
  std::vector<SpawnEvent> events_;
  std::deque<Awaiting> awaiting_;
  std::map<std::int64_t, std::map<int, Arrived>> arrived_;  ///< decision -> group rank -> params
  std::vector<transport::SendHandle> sends_;
};

}  // namespace gfn::roles
