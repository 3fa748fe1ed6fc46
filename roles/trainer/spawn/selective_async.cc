// SelectiveAsyncPolicy (roles/trainer/spawn/selective_async.h).
#include "roles/trainer/spawn/selective_async.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "roles/trainer/spawn/spawn_state.h"
#include "runtime/distributed/spawn/combine.h"
#include "transport/errors.h"
#include "transport/transport.h"

namespace gfn::roles {
namespace {

using transport::MessageError;

std::int64_t total_numel(const std::vector<at::Tensor>& parameters) {
  std::int64_t n = 0;
  for (const auto& t : parameters) n += t.numel();
  return n;
}

SpawnAgent checked(SpawnAgent agent) {
  if (!agent.transport || !agent.agents) {
    throw std::invalid_argument("async spawn: the agent needs a transport and an agent group");
  }
  return agent;
}

}  // namespace

SelectiveAsyncPolicy::SelectiveAsyncPolicy(const roles::ExperimentConfig& config, SpawnAgent agent)
    : options_(config.spawn),
      every_(config.train.average_every),
      agent_(checked(std::move(agent))),
      parameters_(agent_.parameters),
      transport_(*agent_.transport),
      agents_(*agent_.agents),
      timeout_s_(config.transport.timeout_s),
      hooks_(agent_.hooks),
      model_size_(total_numel(parameters_)),
      rounds_(std::max(agents_.size(), 1)) {
  if (agents_.rank() < 0) {
    throw transport::TransportError("async spawn: this rank is not a member of its agent group");
  }
}

bool SelectiveAsyncPolicy::after_step(std::int64_t iteration) {
  // No barrier: post this decision point's metric, then take in whatever has arrived.
  if (iteration % every_ == 0) post(iteration, agent_.metric());
  progress(iteration);
  return true;
}

std::string SelectiveAsyncPolicy::save_state(std::int64_t iteration) {
  finish(iteration);  // nothing in flight in the saved state
  return encode_spawn_state(state(iteration));
}

void SelectiveAsyncPolicy::restore_state(const std::string& bytes, std::int64_t) {
  SpawnState saved = decode_spawn_state(bytes);
  if (hooks_.on_restore) hooks_.on_restore(saved.times_replaced);
  restore(std::move(saved));
}

void SelectiveAsyncPolicy::post(std::int64_t iteration, double local_metric) {
  if (agents_.size() <= 1) return;
  rounds_.add(iteration, agents_.rank(), local_metric);
  protocol::SpawnMetricReport report;
  report.iteration = iteration;
  report.group_rank = agents_.rank();
  report.metric = local_metric;
  const auto& ranks = agents_.global_ranks();
  for (int r = 0; r < agents_.size(); ++r) {
    if (r == agents_.rank()) continue;
    sends_.push_back(protocol::isend(transport_, ranks[static_cast<std::size_t>(r)], report));
  }
}

void SelectiveAsyncPolicy::progress(std::int64_t iteration) {
  if (agents_.size() <= 1) return;
  while (receive_one(0.0)) {
  }
  decide_ready(iteration);
  apply_ready(iteration);
  reap_sends();
}

void SelectiveAsyncPolicy::finish(std::int64_t iteration) {
  if (agents_.size() <= 1) return;
  progress(iteration);
  while (rounds_.pending_through(iteration) || !awaiting_.empty()) {
    if (!receive_one(timeout_s_)) {
      throw transport::TimeoutError(fmt::format(
          "rank {}: async spawn: no SPAWN_METRIC / SPAWN_PARAMS within {} s while draining "
          "after iteration {} (end of training or checkpoint; decision points up to it "
          "undecided: {}, replacements waiting for donors: {})",
          transport_.rank(), timeout_s_, iteration,
          rounds_.pending_through(iteration) ? "yes" : "no", awaiting_.size()));
    }
    decide_ready(iteration);
    apply_ready(iteration);
  }
  for (auto& s : sends_) s.wait(std::chrono::duration<double>(timeout_s_));
  sends_.clear();
}

bool SelectiveAsyncPolicy::receive_one(double timeout_s) {
  transport::Received got;
  try {
    got = transport_.recv(transport::kAnySource, protocol::tags::kSpawn,
                          transport::Seconds(timeout_s));
  } catch (const transport::TimeoutError&) {
    return false;
  }
  const auto view =
      protocol::decode_message_view(got.bytes, transport_.options().max_message_bytes);
  if (view.type == protocol::MessageType::kSpawnMetric) {
    const auto m = protocol::decode<protocol::SpawnMetricReport>(view);
    try {
      rounds_.add(m.iteration, m.group_rank, m.metric);
    } catch (const std::invalid_argument& e) {
      throw MessageError(fmt::format("SPAWN_METRIC from rank {}: {}", got.src, e.what()), got.src);
    }
    return true;
  }
  if (view.type == protocol::MessageType::kSpawnParams) {
    auto p = protocol::decode<protocol::SpawnParameters>(view);
    if (static_cast<std::int64_t>(p.parameters.size()) != model_size_) {
      throw MessageError(fmt::format("SPAWN_PARAMS from rank {}: {} parameters, expected {}",
                                     got.src, p.parameters.size(), model_size_),
                         got.src);
    }
    arrived_[p.decision][p.group_rank] = Arrived{p.sent_iteration, std::move(p.parameters)};
    return true;
  }
  throw MessageError(
      fmt::format("rank {}: on tag {} expected {}, got {} from rank {}", transport_.rank(),
                  protocol::tags::kSpawn,
                  protocol::names_on(protocol::tags::kSpawn, protocol::Role::kTrainer,
                                     protocol::Role::kTrainer),
                  protocol::name(view.type), got.src),
      got.src);
}

void SelectiveAsyncPolicy::decide_ready(std::int64_t iteration) {
  const auto& ranks = agents_.global_ranks();
  const int me = agents_.rank();
  while (auto round = rounds_.pop_complete()) {
    const auto d =
        dist::spawn::decide(round->metrics, round->iteration, last_replacement_, options_);
    SpawnEvent event;
    event.iteration = round->iteration;
    event.metrics = round->metrics;
    event.skipped = d.skipped;
    if (!d.replace) {
      events_.push_back(std::move(event));
      continue;
    }
    event.replaced_any = true;
    for (int r : d.replaced) event.replaced.push_back(ranks[static_cast<std::size_t>(r)]);
    for (int r : d.donors) {
      event.donors.push_back(ranks[static_cast<std::size_t>(r)]);
      event.weights.push_back(d.weights[static_cast<std::size_t>(r)]);
    }
    last_replacement_ = round->iteration;
    if (me == 0) {
      spdlog::info(
          "spawn decision at iteration {} (async, taken after iteration {}): agents {} to be "
          "replaced by {} (weights {:.3f}), metrics {:.4g}",
          round->iteration, iteration, fmt::join(event.replaced, ","), fmt::join(event.donors, ","),
          fmt::join(event.weights, ","), fmt::join(event.metrics, ","));
    }
    const bool replaced = dist::spawn::is_replaced(d, me);
    const bool donor = std::find(d.donors.begin(), d.donors.end(), me) != d.donors.end();
    if (donor) {
      protocol::SpawnParameters p;
      p.decision = round->iteration;
      p.sent_iteration = iteration;
      p.group_rank = me;
      const at::Tensor flat = dist::spawn::flatten_parameters(parameters_);
      p.parameters.assign(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
      for (int r : d.replaced) {
        sends_.push_back(protocol::isend(transport_, ranks[static_cast<std::size_t>(r)], p));
      }
    }
    events_.push_back(std::move(event));
    if (replaced) awaiting_.push_back(Awaiting{events_.size() - 1, d});
  }
}

void SelectiveAsyncPolicy::apply_ready(std::int64_t iteration) {
  while (!awaiting_.empty()) {
    Awaiting& a = awaiting_.front();
    const std::int64_t decision = events_[a.event].iteration;
    auto& from = arrived_[decision];
    const bool complete = std::all_of(a.decision.donors.begin(), a.decision.donors.end(),
                                      [&](int d) { return from.count(d) != 0; });
    if (!complete) return;
    SpawnEvent& event = events_[a.event];
    if (hooks_.on_respawn) hooks_.on_respawn(times_replaced_ + 1);
    if (options_.strategy == dist::spawn::SpawnStrategy::kResetWeights) {
      hooks_.reinitialize(agent_.seed + 1000003ULL * static_cast<std::uint64_t>(decision));
    } else {
      std::vector<const float*> sources;
      std::vector<double> weights;
      for (int d : a.decision.donors) {
        const Arrived& got = from.at(d);
        sources.push_back(got.parameters.data());
        weights.push_back(a.decision.weights[static_cast<std::size_t>(d)]);
        event.donor_iterations.push_back(got.sent_iteration);
      }
      at::Tensor own = dist::spawn::flatten_parameters(parameters_);
      at::Tensor combined = at::empty({model_size_}, at::kFloat);
      dist::spawn::weighted_sum(sources, weights, model_size_, combined.data_ptr<float>());
      dist::spawn::blend(own.data_ptr<float>(), combined.data_ptr<float>(), model_size_,
                         options_.momentum);
      dist::spawn::assign_flat(own, parameters_);
    }
    if (hooks_.after_replace) hooks_.after_replace();
    ++times_replaced_;
    event.applied_at = iteration;
    spdlog::info(
        "spawn at iteration {} (async, decided at iteration {}): agent {} replaced by {} "
        "(weights {:.3f}; their parameters of iterations {})",
        iteration, decision, transport_.rank(), fmt::join(event.donors, ","),
        fmt::join(event.weights, ","), fmt::join(event.donor_iterations, ","));
    arrived_.erase(decision);
    awaiting_.pop_front();
  }
}

SpawnState SelectiveAsyncPolicy::state(std::int64_t iteration) const {
  if (rounds_.pending_through(iteration) || !awaiting_.empty() || !sends_.empty() ||
      !arrived_.empty()) {
    throw std::logic_error("async spawn: state() with messages pending (call finish first)");
  }
  return {times_replaced_, last_replacement_, events_};
}

void SelectiveAsyncPolicy::restore(SpawnState state) {
  times_replaced_ = state.times_replaced;
  last_replacement_ = state.last_replacement;
  events_ = std::move(state.events);
}

void SelectiveAsyncPolicy::reap_sends() {
  sends_.erase(std::remove_if(sends_.begin(), sends_.end(),
                              [](transport::SendHandle& s) { return s.is_complete(); }),
               sends_.end());
}

}  // namespace gfn::roles
