// BatchAssembly::save_state / load_state (batch_assembly.h): the batch assembly's entries of
// the Learner's checkpoint archive (docs/checkpoints.md "Checkpoint and resume"). The local
// replay buffer is one uint8 tensor "replay_table" (runtime/buffer/table_state.h bytes);
// queued remote trajectories are kept as their packed action sequences ("queued_lengths",
// "queued_actions"; runtime/gfn/trajectory_ops.h) and rebuilt by replaying them on load.
#include <ATen/ATen.h>
#include <torch/serialize/archive.h>

#include <stdexcept>
#include <string>

#include "runtime/buffer/table.h"
#include "runtime/buffer/table_state.h"
#include "runtime/gfn/archive_io.h"
#include "runtime/gfn/batch_assembly.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

void BatchAssembly::save_state(OutputArchive& archive) const {
  archive.write("remote_trajs_trained", c10::IValue(counts_.remote_trajectories));
  archive.write("remote_trained", c10::IValue(counts_.remote));
  archive.write("replayed_trained", c10::IValue(counts_.replayed));
  archive.write("local_search_proposals", c10::IValue(counts_.local_search_proposals));
  archive.write("local_search_accepted", c10::IValue(counts_.local_search_accepted));
  archive.write("trajectories_sampled", c10::IValue(counts_.sampled));
  if (replay_) {  // the local replay buffer (runtime/buffer/table_state.h), as uint8 bytes
    std::string bytes = buffer::encode_table_state(replay_->save_state());
    archive.write(
        "replay_table",
        at::from_blob(bytes.data(), {static_cast<std::int64_t>(bytes.size())}, at::kByte).clone());
  }
  archive.write("queued_states",
                queued_states_.defined()
                    ? queued_states_.clone()
                    : at::empty({0, static_cast<std::int64_t>(env_.state_dim())}, at::kLong));
  buffer::PackedTrajectories queued;
  if (queued_trajs_.n_trajectories > 0) pack_trajectories(queued_trajs_, queued);
  archive.write("queued_lengths", at::tensor(queued.lengths, at::kInt));
  archive.write("queued_actions", at::tensor(queued.actions, at::kLong));
}

void BatchAssembly::load_state(InputArchive& archive) {
  counts_.remote_trajectories = read_int(archive, "remote_trajs_trained");
  counts_.remote = read_int(archive, "remote_trained");
  counts_.replayed = read_int(archive, "replayed_trained");
  // Absent from checkpoints written before local search existed: counted from 0.
  counts_.local_search_proposals = read_int_or(archive, "local_search_proposals", 0);
  counts_.local_search_accepted = read_int_or(archive, "local_search_accepted", 0);
  counts_.sampled = read_int_or(archive, "trajectories_sampled", 0);
  if (replay_) {
    const at::Tensor stored = read_tensor(archive, "replay_table").contiguous();
    const auto* p = reinterpret_cast<const char*>(stored.data_ptr<std::uint8_t>());
    try {
      replay_->restore_state(buffer::decode_table_state(std::string(p, p + stored.numel()),
                                                        "checkpoint: the local replay buffer"));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("checkpoint: the local replay buffer: ") + e.what());
    }
  }
  const at::Tensor queued = read_tensor(archive, "queued_states");
  queued_states_ = queued.size(0) > 0 ? queued : at::Tensor();
  // Queued remote trajectories: absent in checkpoints of runs that had none (format 1).
  queued_trajs_ = Trajectories();
  at::Tensor lengths, actions;
  if (!archive.try_read("queued_lengths", lengths) || !archive.try_read("queued_actions", actions))
    return;
  lengths = lengths.contiguous();
  actions = actions.contiguous();
  buffer::PackedTrajectories packed;
  packed.lengths.assign(lengths.data_ptr<std::int32_t>(),
                        lengths.data_ptr<std::int32_t>() + lengths.numel());
  packed.actions.assign(actions.data_ptr<std::int64_t>(),
                        actions.data_ptr<std::int64_t>() + actions.numel());
  try {
    queue_trajectories(packed);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("checkpoint: the queued remote trajectories: ") +
                             e.what());
  }
}

}  // namespace gfn::core
