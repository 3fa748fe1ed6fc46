#include "transport/gloo/gloo_group.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <thread>

namespace gfn::transport::gloo_detail {

GlooGroup::GlooGroup(std::shared_ptr<GlooSession> session, std::vector<int> ranks,
                     const std::string& prefix)
    : session_(std::move(session)), ranks_(std::move(ranks)), prefix_(prefix) {
  const auto it = std::find(ranks_.begin(), ranks_.end(), session_->rank);
  if (it == ranks_.end()) return;  // not a member: no Gloo context
  group_rank_ = static_cast<int>(it - ranks_.begin());
  try {
    auto store = c10::make_intrusive<c10d::PrefixStore>(prefix, session_->store);
    auto opts = c10d::ProcessGroupGloo::Options::create(
        std::chrono::duration_cast<std::chrono::milliseconds>(collective_timeout()));
    opts->devices.push_back(session_->device);
    pg_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store, group_rank_, size(), opts);
  } catch (const std::exception& e) {
    throw TransportError("torch backend: creating process group '" + prefix + "' (rank " +
                         std::to_string(session_->rank) + ") failed: " + e.what());
  }
}

// Members meet on the store before their Gloo context is destroyed: a rank that closed
// its pairs while a peer was still reading the last message of a collective (or still
// connecting a newer group through the shared device) made that peer fail with
// "Connection closed by peer". Bounded, never throws.
GlooGroup::~GlooGroup() {
  if (group_rank_ < 0 || size() < 2 || !pg_) return;
  try {
    const std::string key = prefix_ + "destroyed";
    session_->store->add(key, 1);
    const auto deadline = Clock::now() + std::min<Seconds>(session_->options.timeout, Seconds(60));
    while (session_->store->add(key, 0) < size()) {
      if (Clock::now() > deadline) {
        spdlog::warn("torch backend: process group '{}' destroyed before all {} members left it",
                     prefix_, size());
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } catch (const std::exception& e) {
    spdlog::warn("torch backend: leaving process group '{}': {}", prefix_, e.what());
  }
}

void GlooGroup::require_member(const char* op) const {
  if (group_rank_ < 0) {
    throw TransportError(std::string("torch backend: ") + op + " on a group that rank " +
                         std::to_string(session_->rank) + " is not a member of");
  }
}

Seconds GlooGroup::collective_timeout() const {
  return session_->options.timeout * kCollectiveTimeoutFactor;
}

// Members can be at different collectives when one stalls (a ring all-reduce lets a member
// finish once it has every chunk, and it goes on to the next collective, maybe on another
// group), so the mark is per rank, not per collective: "this rank is alive and timed out".
std::optional<std::vector<int>> GlooGroup::missing_members() const {
  const std::string base = "gfn/collective_timed_out/";
  std::optional<std::vector<int>> missing;  // the last complete round of checks
  try {
    session_->store->set(base + std::to_string(session_->rank), std::vector<std::uint8_t>{1});
    const auto grace = std::min<Seconds>(session_->options.timeout, Seconds(10));
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(grace);
    for (;;) {
      std::vector<int> round;
      for (int r = 0; r < size(); ++r) {
        const int global = ranks_[static_cast<std::size_t>(r)];
        if (r != group_rank_ && !session_->store->check({base + std::to_string(global)})) {
          round.push_back(global);
        }
      }
      missing = std::move(round);
      if (missing->empty() || Clock::now() > deadline) return missing;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  } catch (const std::exception& e) {
    // The store's server lives in global rank 0: gone when that rank has stopped or ended
    // (then the last complete round, if any, still tells).
    if (!missing) {
      spdlog::warn("torch backend: cannot tell which members missed a collective: {}", e.what());
    }
    return missing;
  }
}

void GlooGroup::run(const char* op, const c10::intrusive_ptr<c10d::Work>& work) const {
  try {
    work->wait();
  } catch (const std::exception& e) {
    if (!is_timeout_message(e.what())) {
      throw TransportError(std::string("torch backend: ") + op + " on a group of " +
                           std::to_string(size()) + " ranks (group rank " +
                           std::to_string(group_rank_) + ") failed: " + e.what());
    }
    const auto missing = missing_members();
    std::string who;
    if (!missing) {
      who = "the store is unreachable, so the missing members are unknown";
    } else if (missing->empty()) {
      who = "every member reached it";
    } else {
      for (int r : *missing) who += (who.empty() ? "rank(s) " : ", ") + std::to_string(r);
      who += " did not reach it (stopped, hung, or waiting elsewhere)";
    }
    throw TimeoutError(fmt::format(
        "torch backend: {} on a group of {} ranks (group rank {}) timed out after {:g} s ({:g} x "
        "transport.timeout_s): {}; Gloo: {}",
        op, size(), group_rank_, collective_timeout().count(), kCollectiveTimeoutFactor, who,
        e.what()));
  }
}

void GlooGroup::barrier() {
  require_member("barrier");
  run("barrier", pg_->barrier());
}

void GlooGroup::broadcast(void* data, std::size_t count, DType dtype, int root) {
  require_member("broadcast");
  if (root < 0 || root >= size()) {
    throw TransportError("torch backend: broadcast root " + std::to_string(root) +
                         " is not a group rank (group size " + std::to_string(size()) + ")");
  }
  if (count == 0) return;
  std::vector<at::Tensor> t{view_tensor(data, count, dtype)};
  c10d::BroadcastOptions o;
  o.rootRank = root;
  o.rootTensor = 0;
  run("broadcast", pg_->broadcast(t, o));
}

void GlooGroup::all_reduce(void* data, std::size_t count, DType dtype, ReduceOp op) {
  require_member("all_reduce");
  if (count == 0) return;
  std::vector<at::Tensor> t{view_tensor(data, count, dtype)};
  c10d::AllreduceOptions o;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      o.reduceOp = c10d::ReduceOp::SUM;
      break;
    case ReduceOp::kMax:
      o.reduceOp = c10d::ReduceOp::MAX;
      break;
    case ReduceOp::kMin:
      o.reduceOp = c10d::ReduceOp::MIN;
      break;
    default:
      throw TransportError("torch backend: unknown ReduceOp value " +
                           std::to_string(static_cast<int>(op)));
  }
  run("all_reduce", pg_->allreduce(t, o));
  if (op == ReduceOp::kAvg) {
    // AVG = SUM / group size; integer types truncate toward zero.
    if (at::isFloatingType(t[0].scalar_type())) {
      t[0].div_(size());
    } else {
      t[0].div_(size(), "trunc");
    }
  }
}

void GlooGroup::all_gather(const void* in, std::size_t count, DType dtype, void* out) {
  require_member("all_gather");
  if (count == 0) return;
  const std::size_t bytes = count * dtype_size(dtype);
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int i = 0; i < size(); ++i) {
    outputs[0].push_back(view_tensor(static_cast<char*>(out) + i * bytes, count, dtype));
  }
  std::vector<at::Tensor> inputs{view_tensor(const_cast<void*>(in), count, dtype)};
  run("all_gather", pg_->allgather(outputs, inputs));
}

}  // namespace gfn::transport::gloo_detail
