#include "roles/trainer/trainer_checkpoint.h"

#include <ATen/ATen.h>
#include <torch/serialize/archive.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "roles/experiment/experiment.h"
#include "runtime/checkpoint/store.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/engine_options.h"
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

/// One line "rank name bytes crc32" per manifest entry, for the gather to trainer-group
/// rank 0.
transport::Bytes entry_bytes(const std::vector<checkpoint::FileEntry>& entries) {
  std::string s;
  for (const auto& e : entries) {
    s += std::to_string(e.rank) + " " + e.name + " " + std::to_string(e.bytes) + " " +
         std::to_string(e.crc32) + "\n";
  }
  return transport::Bytes(s.begin(), s.end());
}

/// The entries of every trainer's entry_bytes, one per rank, ascending.
std::vector<checkpoint::FileEntry> parse_entries(const std::vector<transport::Bytes>& all) {
  std::map<int, checkpoint::FileEntry> by_rank;
  for (const auto& b : all) {
    std::istringstream in(std::string(b.begin(), b.end()));
    checkpoint::FileEntry e;
    while (in >> e.rank >> e.name >> e.bytes >> e.crc32) {
      const auto [it, inserted] = by_rank.emplace(e.rank, e);
      if (!inserted && (it->second.bytes != e.bytes || it->second.crc32 != e.crc32)) {
        throw checkpoint::CheckpointError("checkpoint: two different entries for rank " +
                                          std::to_string(e.rank) + "'s file " + e.name);
      }
    }
  }
  std::vector<checkpoint::FileEntry> out;
  for (auto& [rank, e] : by_rank) out.push_back(std::move(e));
  return out;
}

at::Tensor byte_tensor(const std::string& bytes) {
  return at::from_blob(const_cast<char*>(bytes.data()), {static_cast<std::int64_t>(bytes.size())},
                       at::kByte)
      .clone();
}

/// `key` of `in` as a vector of T, or empty if the file has no such entry (checkpoints of
/// runs without a buffer manager).
template <class T>
std::vector<T> optional_vector(InputArchive& in, const std::string& key) {
  at::Tensor t;
  if (!in.try_read(key, t)) return {};
  t = t.contiguous();
  const T* p = t.data_ptr<T>();
  return std::vector<T>(p, p + t.numel());
}

std::int64_t optional_int(InputArchive& in, const std::string& key) {
  c10::IValue v;
  return in.try_read(key, v) ? v.toInt() : 0;
}

}  // namespace

std::string encode_trainer_state(const core::Agent& learner, const TrainerLoopState& loop,
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
  root.write("remote_items", c10::IValue(loop.remote_items));
  root.write("remote_refused", c10::IValue(loop.remote_refused));
  if (!loop.submitter.empty()) {
    root.write("submitter", byte_tensor(loop.submitter));
    root.write("pending_states", at::tensor(loop.pending_states, at::kLong));
    if (!loop.pending_float_states.empty()) {
      root.write("pending_float_states", at::tensor(loop.pending_float_states, at::kFloat));
    }
    root.write("pending_log_rewards", at::tensor(loop.pending_log_rewards, at::kFloat));
    root.write("pending_lengths", at::tensor(loop.pending_trajectories.lengths, at::kInt));
    root.write("pending_actions", at::tensor(loop.pending_trajectories.actions, at::kLong));
    root.write("pending_iterations", c10::IValue(loop.pending_iterations));
  }
  if (!loop.spawn.empty()) root.write("spawn", byte_tensor(loop.spawn));
  if (!loop.timing.empty()) root.write("timing", byte_tensor(loop.timing));
  if (!loop.final_validation.empty()) {
    root.write("final_validation", at::tensor(loop.final_validation, at::kDouble));
  }
  std::ostringstream out;
  root.save_to(out);
  return std::move(out).str();
}

TrainerLoopState decode_trainer_state(const std::string& bytes, core::Agent& learner,
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
  loop.remote_items = optional_int(root, "remote_items");
  loop.remote_refused = optional_int(root, "remote_refused");
  const auto submitter = optional_vector<std::uint8_t>(root, "submitter");
  loop.submitter.assign(submitter.begin(), submitter.end());
  loop.pending_states = optional_vector<std::int64_t>(root, "pending_states");
  loop.pending_float_states = optional_vector<float>(root, "pending_float_states");
  loop.pending_log_rewards = optional_vector<float>(root, "pending_log_rewards");
  loop.pending_trajectories.lengths = optional_vector<std::int32_t>(root, "pending_lengths");
  loop.pending_trajectories.actions = optional_vector<std::int64_t>(root, "pending_actions");
  loop.pending_iterations = optional_int(root, "pending_iterations");
  const auto spawn = optional_vector<std::uint8_t>(root, "spawn");
  loop.spawn.assign(spawn.begin(), spawn.end());
  const auto timing = optional_vector<std::uint8_t>(root, "timing");
  loop.timing.assign(timing.begin(), timing.end());
  loop.final_validation = optional_vector<double>(root, "final_validation");
  if (learner.counts().iterations != loop.iteration) {
    throw std::runtime_error("checkpoint: the learner's iteration count " +
                             std::to_string(learner.counts().iterations) +
                             " differs from the trainer's " + std::to_string(loop.iteration));
  }
  return loop;
}

std::string write_trainer_checkpoint(const roles::ExperimentConfig& config,
                                     const TrainerSetup& setup, std::int64_t iteration,
                                     const std::string& bytes,
                                     const std::vector<checkpoint::FileEntry>& others) {
  auto& transport = *setup.transport;
  auto& trainers = *setup.trainer_group;
  const checkpoint::CheckpointStore store(checkpoint::checkpoints_root(config.output.dir),
                                          config.checkpoint.keep);
  std::vector<checkpoint::FileEntry> mine = others;
  mine.push_back(store.write_rank_file(iteration, transport.rank(), bytes));
  const auto all = transport::gather_bytes(trainers, entry_bytes(mine), 0);
  const std::string dir = store.directory(iteration);
  if (trainers.rank() == 0) {
    std::vector<std::string> roles = setup.world_roles;
    if (roles.empty()) roles.assign(static_cast<std::size_t>(transport.world_size()), "trainer");
    auto manifest =
        checkpoint::make_manifest(iteration, roles::to_yaml(config), transport.world_size(), roles);
    manifest.files = parse_entries(all);
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
