#include "roles/trainer/trainer_checkpoint.h"

#include <ATen/ATen.h>
#include <torch/serialize/archive.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runtime/checkpoint/store.h"
#include "runtime/config/config.h"
#include "runtime/config/engine_options.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/visited_states.h"
#include "transport/gather.h"

namespace gfn::roles {
namespace {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

c10::IValue read_value(InputArchive& in, const std::string& key) {
  c10::IValue v;
  if (!in.try_read(key, v)) {
    throw std::runtime_error("checkpoint: the trainer's state has no entry '" + key + "'");
  }
  return v;
}

at::Tensor read_tensor(InputArchive& in, const std::string& key) {
  at::Tensor t;
  if (!in.try_read(key, t)) {
    throw std::runtime_error("checkpoint: the trainer's state has no tensor '" + key + "'");
  }
  return t.contiguous();
}

/// "rank name bytes crc32" of one manifest entry, for the gather to trainer-group rank 0.
transport::Bytes entry_bytes(const checkpoint::FileEntry& e) {
  const std::string s = std::to_string(e.rank) + " " + e.name + " " + std::to_string(e.bytes) +
                        " " + std::to_string(e.crc32);
  return transport::Bytes(s.begin(), s.end());
}

checkpoint::FileEntry parse_entry(const transport::Bytes& b) {
  std::istringstream in(std::string(b.begin(), b.end()));
  checkpoint::FileEntry e;
  in >> e.rank >> e.name >> e.bytes >> e.crc32;
  return e;
}

}  // namespace

std::string unsupported_reason(const config::ExperimentConfig& config, const TrainerSetup& setup) {
  if (setup.assigned_buffer >= 0 || setup.coordinator >= 0) {
    return "runs with buffer managers or a coordinator cannot be checkpointed yet (trainers "
           "only)";
  }
  if (config.spawn.policy != config::SpawnPolicy::kAverageAll) {
    return "spawn.policy " + std::string(config::enum_name(config.spawn.policy)) +
           " cannot be checkpointed yet (average_all only)";
  }
  if (config.buffer.payload == config::Payload::kFull && config.buffer.remote_sample_fraction > 0) {
    return "remote trajectories (buffer.payload full) cannot be checkpointed yet";
  }
  return "";
}

std::string encode_trainer_state(const core::Learner& learner, const TrainerLoopState& loop,
                                 const core::VisitedTerminatingStates* visited) {
  OutputArchive root;
  OutputArchive learner_archive(root.compilation_unit());
  learner.save_state(learner_archive);
  root.write("learner", learner_archive);
  root.write("iteration", c10::IValue(loop.iteration));
  root.write("trajectories", c10::IValue(loop.trajectories));
  root.write("last_loss", c10::IValue(loop.last_loss));
  root.write("elapsed_s", c10::IValue(loop.elapsed_s));
  std::vector<std::int64_t> modes, iterations;
  std::vector<double> walls;
  for (const auto& f : loop.firsts) {
    modes.push_back(f.mode);
    iterations.push_back(f.iteration);
    walls.push_back(f.wall_s);
  }
  root.write("first_modes", at::tensor(modes, at::kLong));
  root.write("first_iterations", at::tensor(iterations, at::kLong));
  root.write("first_wall_s", at::tensor(walls, at::kDouble));
  if (visited) {
    root.write("visited", visited->window_indices());
    root.write("visited_total", c10::IValue(visited->total_added()));
  }
  std::ostringstream out;
  root.save_to(out);
  return std::move(out).str();
}

TrainerLoopState decode_trainer_state(const std::string& bytes, core::Learner& learner,
                                      core::VisitedTerminatingStates* visited) {
  InputArchive root;
  std::istringstream in(bytes);
  root.load_from(in);
  InputArchive learner_archive;
  root.read("learner", learner_archive);
  learner.load_state(learner_archive);
  TrainerLoopState loop;
  loop.iteration = read_value(root, "iteration").toInt();
  loop.trajectories = read_value(root, "trajectories").toInt();
  loop.last_loss = read_value(root, "last_loss").toDouble();
  loop.elapsed_s = read_value(root, "elapsed_s").toDouble();
  const auto modes = read_tensor(root, "first_modes");
  const auto iterations = read_tensor(root, "first_iterations");
  const auto walls = read_tensor(root, "first_wall_s");
  for (std::int64_t i = 0; i < modes.numel(); ++i) {
    loop.firsts.push_back({modes.data_ptr<std::int64_t>()[i],
                           iterations.data_ptr<std::int64_t>()[i], walls.data_ptr<double>()[i]});
  }
  if (visited) {
    visited->restore(read_tensor(root, "visited"), read_value(root, "visited_total").toInt());
  }
  if (learner.iterations_done() != loop.iteration) {
    throw std::runtime_error("checkpoint: the learner's iteration count " +
                             std::to_string(learner.iterations_done()) +
                             " differs from the trainer's " + std::to_string(loop.iteration));
  }
  return loop;
}

std::string write_trainer_checkpoint(const config::ExperimentConfig& config,
                                     const TrainerSetup& setup, std::int64_t iteration,
                                     const std::string& bytes) {
  auto& transport = *setup.transport;
  auto& trainers = *setup.trainer_group;
  const checkpoint::CheckpointStore store(checkpoint::checkpoints_root(config.output.dir),
                                          config.checkpoint.keep);
  const auto mine = store.write_rank_file(iteration, transport.rank(), bytes);
  const auto all = transport::gather_bytes(trainers, entry_bytes(mine), 0);
  const std::string dir = store.directory(iteration);
  if (trainers.rank() == 0) {
    std::vector<std::string> roles = setup.world_roles;
    if (roles.empty()) roles.assign(static_cast<std::size_t>(transport.world_size()), "trainer");
    auto manifest = checkpoint::make_manifest(iteration, config::to_yaml(config),
                                              transport.world_size(), roles);
    for (const auto& b : all) manifest.files.push_back(parse_entry(b));
    store.commit(manifest);
  }
  // Nobody continues (and may be killed) before the manifest exists.
  std::int32_t done = 1;
  trainers.all_reduce(&done, 1, transport::DType::kInt32, transport::ReduceOp::kMax);
  return dir;
}

void drop_csv_rows_after(const std::string& path, std::int64_t iteration) {
  std::ifstream in(path);
  if (!in) return;
  std::string kept, line;
  bool header = true;
  while (std::getline(in, line)) {
    if (!header) {
      const auto comma = line.find(',');
      try {
        if (std::stoll(line.substr(0, comma)) > iteration) continue;
      } catch (const std::exception&) {
        continue;  // a partial last line of a killed run
      }
    }
    header = false;
    kept += line + "\n";
  }
  in.close();
  std::ofstream out(path, std::ios::trunc);
  out << kept;
  if (!out) throw std::runtime_error("cannot rewrite '" + path + "'");
}

}  // namespace gfn::roles
