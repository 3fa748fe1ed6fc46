// Trainer: resume and checkpoint (roles/trainer/trainer_loop.h; the file's contents:
// roles/trainer/trainer_checkpoint.h).
#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "roles/trainer/trainer_checkpoint.h"
#include "roles/trainer/trainer_loop.h"
#include "runtime/checkpoint/store.h"
#include "runtime/checkpoint/versioned_state.h"
#include "runtime/timing/timing_table.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

// TrainerLoopState::final_validation, in its order.
std::vector<double> final_validation_values(const TrainerResult& result) {
  if (!result.has_final_metrics) return {};
  const auto& f = result.final_metrics;
  return {f.l1_exact, f.l1_sampled, f.l1_visited, f.spearman_logp_logr,
          f.jsd,      f.logz_error, f.logz};
}

void restore_final_validation(const std::vector<double>& v, TrainerResult& result) {
  if (v.empty()) return;
  if (v.size() != 7) {
    throw std::runtime_error("checkpoint: the trainer's final_validation has " +
                             std::to_string(v.size()) + " values, expected 7");
  }
  auto& f = result.final_metrics;
  f.l1_exact = v[0];
  f.l1_sampled = v[1];
  f.l1_visited = v[2];
  f.spearman_logp_logr = v[3];
  f.jsd = v[4];
  f.logz_error = v[5];
  f.logz = v[6];
  result.has_final_metrics = true;
}

}  // namespace

// After every set-up step that draws from LibTorch's default generator (the constructor).
void Trainer::resume() {
  const auto loop = decode_trainer_state(
      checkpoint::read_rank_file(*setup_.resume, transport_.rank()), *agent_, visited());
  first_it_ = loop.iteration + 1;
  result_.trajectories = loop.trajectories;
  result_.iterations = loop.iteration;
  result_.remote_items = loop.remote_items;
  result_.remote_refused = loop.remote_refused;
  last_loss_ = loop.last_loss;
  restore_final_validation(loop.final_validation, result_);  // a checkpoint at the last one
  if (buffer_) buffer_->restore(loop);
  timeline_.restore(loop.firsts);
  spawn_->restore_state(loop.spawn, loop.iteration);
  if (setup_.timing && !loop.timing.empty()) {  // the time report covers the whole run
    checkpoint::decode_versioned(loop.timing, timing::TimingTable::kFormatVersion,
                                 "checkpoint: the trainer's timing table", *setup_.timing);
  }
  t_start_ -= std::chrono::duration_cast<TrainerClock::duration>(
      std::chrono::duration<double>(loop.elapsed_s));
  last_checkpoint_ = loop.iteration;
  if (leader_) {
    spdlog::info("resumed from '{}' after iteration {}", setup_.resume->directory, loop.iteration);
  }
}

// Collective over the trainers: every trainer saves its state at iteration `at`; with a
// buffer manager, after the manager has saved its own (BufferClient::checkpoint).
void Trainer::checkpoint(std::int64_t at) {
  const auto t0 = TrainerClock::now();
  TrainerLoopState loop;
  loop.iteration = at;
  loop.trajectories = result_.trajectories;
  loop.last_loss = last_loss_;
  loop.elapsed_s = seconds_since(t_start_);
  loop.firsts = timeline_.firsts();
  loop.remote_items = result_.remote_items;
  loop.remote_refused = result_.remote_refused;
  std::vector<checkpoint::FileEntry> others;  // the manager's (and coordinator's) files
  if (buffer_) others = buffer_->checkpoint(at, loop);
  loop.spawn = spawn_->save_state(at);
  loop.final_validation = final_validation_values(result_);
  if (setup_.timing) {
    loop.timing = checkpoint::encode_versioned(timing::TimingTable::kFormatVersion, *setup_.timing);
  }
  const auto dir = write_trainer_checkpoint(config_, setup_, at,
                                            encode_trainer_state(*agent_, loop, visited()), others);
  last_checkpoint_ = at;
  add_time(setup_.timing, "checkpoint", seconds_since(t0));
  if (leader_) spdlog::info("checkpoint after iteration {}: {}", at, dir);
}

}  // namespace gfn::roles
