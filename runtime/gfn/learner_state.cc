// Learner::save_state / load_state (runtime/gfn/learner.h): the Learner's part of a
// checkpoint (docs/checkpoints.md "Checkpoint and resume"), as entries of a LibTorch archive
// (torch::serialize, the format of torch::save). Parameters are copied into the existing
// tensors, so FlatAdamW's views (fast/flat_adam.h) stay valid. The local replay buffer is
// one uint8 tensor "replay_table" (runtime/buffer/table_state.h bytes). Queued remote
// trajectories (full payloads) are kept as their packed action sequences ("queued_lengths",
// "queued_actions"; runtime/gfn/trajectory_ops.h) and rebuilt by replaying them on load.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/module.h>
#include <torch/optim/adamw.h>
#include <torch/serialize/archive.h>

#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/buffer/table.h"
#include "runtime/buffer/table_state.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/flat_adam.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/learner_optim.h"
#include "runtime/gfn/trajectory_ops.h"

namespace gfn::core {
namespace {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

at::Tensor read_tensor(InputArchive& archive, const std::string& key) {
  at::Tensor t;  // undefined: read() hands over the stored tensor (never set_ on ours)
  if (!archive.try_read(key, t)) {
    throw std::runtime_error("checkpoint: the learner's state has no entry '" + key + "'");
  }
  return t;
}

std::int64_t read_int(InputArchive& archive, const std::string& key) {
  c10::IValue v;
  if (!archive.try_read(key, v) || !v.isInt()) {
    throw std::runtime_error("checkpoint: the learner's state has no integer '" + key + "'");
  }
  return v.toInt();
}

double read_double(InputArchive& archive, const std::string& key) {
  c10::IValue v;
  if (!archive.try_read(key, v) || !v.isDouble()) {
    throw std::runtime_error("checkpoint: the learner's state has no number '" + key + "'");
  }
  return v.toDouble();
}

at::Tensor generator_state(at::Generator gen) {  // a handle: copies share the state
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

void set_generator_state(at::Generator& gen, const at::Tensor& state) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

/// Copies `stored` into `dst` in place, refusing another shape (another model).
void copy_checked(const at::Tensor& dst, const at::Tensor& stored, const std::string& name) {
  if (!dst.sizes().equals(stored.sizes())) {
    throw std::runtime_error("checkpoint: '" + name + "' has shape " + c10::str(stored.sizes()) +
                             " in the checkpoint, " + c10::str(dst.sizes()) +
                             " in this model (another model?)");
  }
  at::NoGradGuard no_grad;
  dst.copy_(stored);
}

/// Model parameters and buffers in named order: "names" lists them, "t<i>" holds each.
void write_module(OutputArchive& out, torch::nn::Module& module) {
  std::string names;
  std::int64_t i = 0;
  for (const auto& kv : module.named_parameters()) {
    names += kv.key() + "\n";
    out.write("t" + std::to_string(i++), kv.value().detach().clone());
  }
  for (const auto& kv : module.named_buffers()) {
    names += kv.key() + "\n";
    out.write("t" + std::to_string(i++), kv.value().detach().clone());
  }
  out.write("names", c10::IValue(names));
}

void read_module(InputArchive& in, torch::nn::Module& module) {
  c10::IValue stored_names;
  in.read("names", stored_names);
  std::string names;
  std::vector<at::Tensor> tensors;
  for (const auto& kv : module.named_parameters()) {
    names += kv.key() + "\n";
    tensors.push_back(kv.value());
  }
  for (const auto& kv : module.named_buffers()) {
    names += kv.key() + "\n";
    tensors.push_back(kv.value());
  }
  if (stored_names.toStringRef() != names) {
    throw std::runtime_error("checkpoint: the model's parameters differ (checkpoint: [" +
                             stored_names.toStringRef() + "], this model: [" + names + "])");
  }
  std::istringstream list(names);
  std::string name;
  for (std::size_t i = 0; i < tensors.size() && std::getline(list, name); ++i) {
    copy_checked(tensors[i], read_tensor(in, "t" + std::to_string(i)), name);
  }
}

}  // namespace

void Learner::save_state(OutputArchive& archive) const {
  OutputArchive model(archive.compilation_unit());
  write_module(model, *model_);
  archive.write("model", model);

  OutputArchive optim(archive.compilation_unit());
  if (optim_->flat) {
    const auto& flat = *optim_->flat;
    optim.write("step", c10::IValue(flat.steps_done()));
    optim.write("n_groups", c10::IValue(static_cast<std::int64_t>(flat.n_groups())));
    for (std::size_t i = 0; i < flat.n_groups(); ++i) {
      optim.write("exp_avg" + std::to_string(i), flat.flat_exp_avg(i).clone());
      optim.write("exp_avg_sq" + std::to_string(i), flat.flat_exp_avg_sq(i).clone());
    }
  } else {
    optim_->adam->save(optim);
  }
  archive.write("optimizer", optim);

  archive.write("sample_generator", generator_state(sample_gen_));
  archive.write("validation_generator", generator_state(validation_gen_));
  archive.write("default_generator", generator_state(at::detail::getDefaultCPUGenerator()));

  archive.write("iterations", c10::IValue(iterations_));
  archive.write("remote_trajs_trained", c10::IValue(remote_trajs_trained_));
  archive.write("remote_trained", c10::IValue(remote_trained_));
  archive.write("replayed_trained", c10::IValue(replayed_trained_));
  archive.write("reused_iterations", c10::IValue(reused_iterations_));
  archive.write("local_search_proposals", c10::IValue(ls_proposals_));
  archive.write("local_search_accepted", c10::IValue(ls_accepted_));
  archive.write("trajectories_sampled", c10::IValue(sampled_));
  archive.write("epsilon", c10::IValue(train_.epsilon));
  archive.write("temperature", c10::IValue(train_.temperature));
  archive.write("noisy_std_init", c10::IValue(model_options_.noisy_std_init));
  const auto found = modes_ ? modes_->found() : std::vector<std::int64_t>{};
  archive.write("modes_found", at::tensor(found, at::kLong));
  if (replay_) {  // the local replay buffer (runtime/buffer/table_state.h), as uint8 bytes
    std::string bytes = buffer::encode_table_state(replay_->save_state());
    archive.write(
        "replay_table",
        at::from_blob(bytes.data(), {static_cast<std::int64_t>(bytes.size())}, at::kByte).clone());
  }
  archive.write("queued_states",
                queued_states_.defined()
                    ? queued_states_.clone()
                    : at::empty({0, static_cast<std::int64_t>(env_->state_dim())}, at::kLong));
  buffer::PackedTrajectories queued;
  if (queued_trajs_.n_trajectories > 0) pack_trajectories(queued_trajs_, queued);
  archive.write("queued_lengths", at::tensor(queued.lengths, at::kInt));
  archive.write("queued_actions", at::tensor(queued.actions, at::kLong));
}

void Learner::load_state(InputArchive& archive) {
  InputArchive model;
  archive.read("model", model);
  read_module(model, *model_);

  InputArchive optim;
  archive.read("optimizer", optim);
  if (optim_->flat) {
    auto& flat = *optim_->flat;
    const auto n = static_cast<std::size_t>(read_int(optim, "n_groups"));
    std::vector<at::Tensor> m, v;
    for (std::size_t i = 0; i < n; ++i) {
      m.push_back(read_tensor(optim, "exp_avg" + std::to_string(i)));
      v.push_back(read_tensor(optim, "exp_avg_sq" + std::to_string(i)));
    }
    flat.load_state(read_int(optim, "step"), m, v);
  } else {
    optim_->adam->load(optim);
  }

  set_generator_state(sample_gen_, read_tensor(archive, "sample_generator"));
  set_generator_state(validation_gen_, read_tensor(archive, "validation_generator"));
  auto default_gen = at::detail::getDefaultCPUGenerator();
  set_generator_state(default_gen, read_tensor(archive, "default_generator"));

  iterations_ = read_int(archive, "iterations");
  remote_trajs_trained_ = read_int(archive, "remote_trajs_trained");
  remote_trained_ = read_int(archive, "remote_trained");
  replayed_trained_ = read_int(archive, "replayed_trained");
  reused_iterations_ = read_int(archive, "reused_iterations");
  // Absent from checkpoints written before local search existed: counted from 0.
  c10::IValue ls;
  ls_proposals_ = archive.try_read("local_search_proposals", ls) ? ls.toInt() : 0;
  ls_accepted_ = archive.try_read("local_search_accepted", ls) ? ls.toInt() : 0;
  sampled_ = archive.try_read("trajectories_sampled", ls) ? ls.toInt() : 0;
  set_exploration(read_double(archive, "epsilon"), read_double(archive, "temperature"));
  model_options_.noisy_std_init = read_double(archive, "noisy_std_init");
  const at::Tensor found = read_tensor(archive, "modes_found").contiguous();
  if (modes_) {
    const auto* p = found.data_ptr<std::int64_t>();
    modes_->restore(std::vector<std::int64_t>(p, p + found.numel()));
  }
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
  if (archive.try_read("queued_lengths", lengths) && archive.try_read("queued_actions", actions)) {
    lengths = lengths.contiguous();
    actions = actions.contiguous();
    buffer::PackedTrajectories packed;
    packed.lengths.assign(lengths.data_ptr<std::int32_t>(),
                          lengths.data_ptr<std::int32_t>() + lengths.numel());
    packed.actions.assign(actions.data_ptr<std::int64_t>(),
                          actions.data_ptr<std::int64_t>() + actions.numel());
    try {
      queue_replayed_trajectories(packed);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("checkpoint: the queued remote trajectories: ") +
                               e.what());
    }
  }
}

}  // namespace gfn::core
