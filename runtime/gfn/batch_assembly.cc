#include "runtime/gfn/batch_assembly.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/table.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/local_search.h"
#include "runtime/gfn/sampler.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {

BatchAssembly::BatchAssembly(const Environment& env, const buffer::ReplayOptions& replay,
                             const LocalSearchOptions& local_search, std::uint64_t seed)
    : env_(env), replay_options_(replay), local_search_(local_search) {
  if (replay.kind != buffer::ReplayKind::kNone) {
    replay_ = std::make_unique<buffer::ReplayTable>(buffer::local_table_options(
        replay.kind, replay.capacity, replay.cutoff, replay.p_norm, seed ^ 0xD1B54A32D192ED03ULL));
  }
}

BatchAssembly::~BatchAssembly() = default;

void BatchAssembly::queue_states(const at::Tensor& states, const at::Tensor& log_rewards) {
  env_.check_states(states, "BatchAssembly::queue_states");
  if (log_rewards.defined() && (log_rewards.dim() != 1 || log_rewards.size(0) != states.size(0))) {
    throw std::invalid_argument("BatchAssembly::queue_states: log_rewards must be [" +
                                std::to_string(states.size(0)) + "], got " +
                                shape_string(log_rewards));
  }
  if (states.size(0) == 0) return;
  if (!env_.can_terminate(states).all().item<bool>()) {
    throw std::invalid_argument(
        "BatchAssembly::queue_states: every state must be a terminating state");
  }
  queued_states_ =
      queued_states_.defined() ? at::cat({queued_states_, states}) : states.contiguous().clone();
}

void BatchAssembly::queue_trajectories(const buffer::PackedTrajectories& sequences) {
  if (sequences.empty()) return;
  const Trajectories t = trajectories_from_actions(env_, sequences);
  queued_trajs_ = queued_trajs_.n_trajectories > 0 ? concat_trajectories(queued_trajs_, t) : t;
}

std::int64_t BatchAssembly::queued_states() const {
  return queued_states_.defined() ? queued_states_.size(0) : 0;
}

BatchShares BatchAssembly::shares(std::int64_t batch_size, std::int64_t extra_remote) const {
  const std::int64_t queued = queued_states() + queued_trajectories();
  BatchShares s;
  s.total = batch_size + (extra_remote > 0 ? std::min(queued, extra_remote) : 0);
  s.remote_trajectories = std::min(queued_trajectories(), s.total);
  const std::int64_t remote = std::min(queued_states() + s.remote_trajectories, s.total);
  s.remote_states = remote - s.remote_trajectories;
  s.fresh = s.total - remote;
  return s;
}

Trajectories BatchAssembly::sample_fresh(std::int64_t n, Evaluator& evaluator,
                                         const SamplerOptions& sopts, at::Generator& gen) {
  counts_.sampled += n;
  const std::int64_t loops = local_search_.loops;
  if (loops == 0 || n < 2) return evaluator.sample(n, sopts, gen);
  // M searched from s0, the remainder from s0 unsearched, then M proposals per round (at
  // most n - 1 rounds when n < 1 + loops).
  const std::int64_t m = std::max<std::int64_t>(1, n / (1 + loops));
  const std::int64_t rounds = std::min(loops, (n - 1) / m);
  Trajectories batch = evaluator.sample(n - rounds * m, sopts, gen);
  const bool attach = batch.has_saved_outputs();
  at::Tensor x = batch.terminating_states.narrow(0, 0, m);
  at::Tensor log_r = batch.log_rewards.narrow(0, 0, m);
  const PolicyFunction pf = evaluator.forward_policy();
  const PolicyFunction pb = evaluator.backward_policy();
  for (std::int64_t i = 0; i < rounds; ++i) {
    LocalSearchRound round = local_search_round(env_, pf, pb, x, log_r, local_search_, sopts, gen);
    if (attach) evaluator.attach_outputs(round.proposals);
    batch = concat_trajectories(batch, round.proposals);
    counts_.local_search_proposals += m;
    counts_.local_search_accepted += round.accepted.sum().item<std::int64_t>();
    x = round.next_states;
    log_r = round.next_log_rewards;
  }
  return batch;
}

AssembledBatch BatchAssembly::assemble(const BatchShares& s, Evaluator& evaluator,
                                       const SamplerOptions& sopts, at::Generator& gen) {
  AssembledBatch a;
  a.batch = sample_fresh(s.fresh, evaluator, sopts, gen);
  a.fresh = a.batch;
  a.fresh.clear_saved_outputs();
  a.n_fresh = s.fresh;
  // Fresh outputs kept: the replayed and remote parts get theirs from one model pass each (a
  // recomputation under the current parameters), so the whole batch keeps them.
  const bool attach = a.batch.has_saved_outputs();
  if (replay_ && s.fresh > 0) replay(a, evaluator, attach);
  add_remote(s, a, evaluator, attach, gen);
  return a;
}

void BatchAssembly::replay(AssembledBatch& a, Evaluator& evaluator, bool attach) {
  // torchgfn train_hypergrid: add the fresh batch first, then sample from the buffer.
  // Trajectories -> packed -> table: the one layout change on the way in.
  const Trajectories& fresh = a.fresh;
  const at::Tensor xs = fresh.terminating_states.contiguous().to(at::kLong);
  const at::Tensor lr = fresh.log_rewards.contiguous().to(at::kFloat);
  replay_->add(std::vector<std::int64_t>(xs.data_ptr<std::int64_t>(),
                                         xs.data_ptr<std::int64_t>() + xs.numel()),
               std::vector<float>(lr.data_ptr<float>(), lr.data_ptr<float>() + lr.numel()),
               static_cast<int>(xs.size(1)), pack_trajectories(fresh));
  // A buffer smaller than the requested share (e.g. torchgfn's FM setting: capacity 100,
  // batch 128) gives all it holds once full, as torchgfn's Trajectories.sample does.
  const std::int64_t n_fresh = a.n_fresh;
  const auto n_replay = std::min(static_cast<std::int64_t>(std::llround(
                                     replay_options_.fraction * static_cast<double>(n_fresh))),
                                 replay_->capacity());
  if (n_replay == 0 || replay_->size() < std::max(replay_options_.warmup, n_replay)) return;
  // table -> packed -> Trajectories: the one layout change on the way out.
  const buffer::TableBatch drawn = replay_->sample(n_replay);
  Trajectories replayed = trajectories_from_actions(env_, drawn.trajectories,
                                                    at::tensor(drawn.log_rewards, at::kFloat));
  if (attach) evaluator.attach_outputs(replayed);
  a.batch = concat_trajectories(take_trajectories(a.batch, n_fresh - n_replay), replayed);
  a.n_fresh = n_fresh - n_replay;
  a.n_replayed = n_replay;
  counts_.replayed += n_replay;
}

void BatchAssembly::add_remote(const BatchShares& s, AssembledBatch& a, Evaluator& evaluator,
                               bool attach, at::Generator& gen) {
  if (s.remote_trajectories > 0) {  // remote trajectories as given (full payloads)
    Trajectories remote = take_trajectories(queued_trajs_, s.remote_trajectories);
    if (attach) evaluator.attach_outputs(remote);
    a.batch = concat_trajectories(a.batch, remote);
    counts_.remote_trajectories += s.remote_trajectories;
  }
  queued_trajs_ = Trajectories();
  if (s.remote_states > 0) {
    const at::Tensor xs = queued_states_.narrow(0, 0, s.remote_states);
    const auto seqs = sample_backward_actions(env_, evaluator.backward_policy(), xs, gen);
    Trajectories remote = trajectories_from_actions(env_, seqs);
    if (attach) evaluator.attach_outputs(remote);
    a.batch = concat_trajectories(a.batch, remote);
  }
  a.n_remote = s.remote_trajectories + s.remote_states;
  counts_.remote += a.n_remote;
  queued_states_ = at::Tensor();
}

}  // namespace gfn::core
