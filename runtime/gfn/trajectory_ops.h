#pragma once
// Operations on batches of Trajectories (trajectories.h) used by replay: packing a batch into
// the one LibTorch-free trajectory layout (runtime/buffer/packed_trajectories.h) and
// unpacking it back, taking a prefix of a batch and concatenating two batches, all keeping
// the step-major layout the losses need.
//
// A trajectory changes layout at most twice between the sampler and a replay table or the
// wire: Trajectories -> pack_trajectories -> PackedTrajectories (stored by the table as is,
// sent in DATA / SAMPLE as is) -> trajectories_from_actions -> Trajectories.
//
// Why replay keeps action sequences: the environments are deterministic, so s0 and the
// forward actions a_0..a_{n-1} (exit last) determine every state, the terminating state and
// every PB action; a stored trajectory costs n int64 instead of n * state_dim, and
// rebuilding a replayed batch is one batched Environment::step per step. Log-probabilities
// are never stored: replayed (off-policy) trajectories get log PF / log PB recomputed with
// the current policy (losses.h).
//
// All functions are pure (no state); tensors are CPU.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "runtime/buffer/packed_trajectories.h"
#include "runtime/gfn/trajectories.h"

namespace gfn::core {

class Environment;

/// The packer: appends the B trajectories of `trajs` (step-major, with recorded
/// transitions) to `out`: B lengths (actions per trajectory, exit included) and their
/// forward actions in step order, exit last. O(N) over the transitions; B = 0 appends
/// nothing. Throws std::invalid_argument if the batch has no recorded transitions or its
/// lengths do not add up to its transitions.
void pack_trajectories(const Trajectories& trajs, buffer::PackedTrajectories& out);
/// The same into a new PackedTrajectories.
buffer::PackedTrajectories pack_trajectories(const Trajectories& trajs);

/// The unpacker: rebuilds a batch from packed action sequences by stepping from s0 (one
/// validated Environment::step per step for all still-running trajectories). log_rewards
/// float32 [B] if given (e.g. stored with the trajectories), else env.log_reward of the
/// terminating states. Throws std::invalid_argument naming the trajectory for an
/// inconsistent packing, an empty sequence, an exit before the end, a missing final exit,
/// an out-of-range or disallowed action, or a final state that cannot terminate.
Trajectories trajectories_from_actions(const Environment& env,
                                       const buffer::PackedTrajectories& sequences,
                                       const at::Tensor& log_rewards = {});

/// The first k trajectories of a batch (0 <= k <= B), layout kept (saved outputs too,
/// trajectories.h). Throws
/// std::invalid_argument for k out of range or a batch without transitions.
Trajectories take_trajectories(const Trajectories& trajs, std::int64_t k);

/// The trajectories of a followed by those of b (b's indices shifted by a's B), in
/// step-major layout. Either may be empty (B = 0). Saved outputs (trajectories.h) are
/// kept when both non-empty parts have them (each field separately; none without PF
/// logits on both sides), else dropped, so the loss recomputes the whole batch. Throws
/// std::invalid_argument if one has no recorded transitions or their state widths differ.
Trajectories concat_trajectories(const Trajectories& a, const Trajectories& b);

}  // namespace gfn::core
