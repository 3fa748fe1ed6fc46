#include "tests/support/loopback_transport.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gfn::testing {
namespace {

using transport::Bytes;
using transport::Seconds;
using transport::TransportError;
using Clock = std::chrono::steady_clock;

/// The handle of an isend that failed after it was posted: every test and wait throws.
class FailedSend final : public transport::PendingSend {
 public:
  FailedSend(std::string what, int dst, int tag) : what_(std::move(what)), dst_(dst), tag_(tag) {}
  bool test() override { throw TransportError(what_); }
  void wait(double) override { throw TransportError(what_); }
  int peer() const override { return dst_; }
  int tag() const override { return tag_; }

 private:
  std::string what_;
  int dst_;
  int tag_;
};

/// The handle of a delivered isend: complete from the start.
class DeliveredSend final : public transport::PendingSend {
 public:
  DeliveredSend(int dst, int tag) : dst_(dst), tag_(tag) {}
  bool test() override { return true; }
  void wait(double) override {}
  int peer() const override { return dst_; }
  int tag() const override { return tag_; }

 private:
  int dst_;
  int tag_;
};

/// WORLD of a loopback world: membership only, no collectives.
class LoopbackGroup final : public transport::Group {
 public:
  LoopbackGroup(int rank, int size) : rank_(rank) {
    for (int r = 0; r < size; ++r) ranks_.push_back(r);
  }
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(ranks_.size()); }
  const std::vector<int>& global_ranks() const override { return ranks_; }
  void barrier() override { unsupported("barrier"); }
  void broadcast(void*, std::size_t, transport::DType, int) override { unsupported("broadcast"); }
  void all_reduce(void*, std::size_t, transport::DType, transport::ReduceOp) override {
    unsupported("all_reduce");
  }
  void all_gather(const void*, std::size_t, transport::DType, void*) override {
    unsupported("all_gather");
  }

 private:
  [[noreturn]] void unsupported(const char* what) const {
    throw TransportError(fmt::format(
        "loopback transport rank {}: {} is not supported (point-to-point only)", rank_, what));
  }
  int rank_;
  std::vector<int> ranks_;
};

}  // namespace

struct LoopbackWorld::State {
  struct Letter {
    int src;
    Bytes bytes;
  };
  struct Fault {
    enum Kind { kFailSend, kFailCompletion, kDrop, kCorrupt } kind;
    int dst;
    int tag;  // kAnyTag: any
    std::string why;
    std::function<void(Bytes&)> edit;
  };

  State(int n, transport::TransportOptions o) : size(n), options(std::move(o)) {}

  const int size;
  const transport::TransportOptions options;
  mutable std::mutex mutex;
  std::condition_variable arrived;
  std::map<std::pair<int, int>, std::deque<Letter>> mailboxes;  // (dst, tag)
  std::deque<Fault> faults;
  std::vector<std::unique_ptr<transport::Transport>> ranks;

  /// Removes and returns the first armed fault matching (dst, tag), if any. Locked.
  std::optional<Fault> take_fault(int dst, int tag) {
    const auto it = std::find_if(faults.begin(), faults.end(), [&](const Fault& f) {
      return f.dst == dst && (f.tag == kAnyTag || f.tag == tag);
    });
    if (it == faults.end()) return std::nullopt;
    Fault f = std::move(*it);
    faults.erase(it);
    return f;
  }

  void check_rank(int rank, const char* what) const {
    if (rank < 0 || rank >= size) {
      throw std::out_of_range(
          fmt::format("loopback world of {} ranks: {} rank {} is out of range", size, what, rank));
    }
  }
};

namespace {

class LoopbackTransport final : public transport::Transport {
 public:
  LoopbackTransport(LoopbackWorld::State& state, int rank)
      : state_(state), rank_(rank), world_(rank, state.size), options_(state.options) {}

  std::string backend() const override { return "loopback"; }
  int rank() const override { return rank_; }
  int world_size() const override { return state_.size; }
  const transport::TransportOptions& options() const override { return options_; }
  /// Recorded only: loopback receives wait on a condition variable.
  void set_receive_wait(transport::ReceiveWait wait) override { options_.receive_wait = wait; }

  void send(const std::uint8_t* data, std::size_t size, int dst, int tag) override {
    Bytes copy(data, data + size);
    post(std::move(copy), dst, tag, "send");
  }

  transport::SendHandle isend(Bytes bytes, int dst, int tag) override {
    return post(std::move(bytes), dst, tag, "isend");
  }

  transport::Received recv(int src, int tag, Seconds timeout) override {
    if (src != transport::kAnySource && (src < 0 || src >= state_.size)) {
      throw TransportError(
          fmt::format("loopback rank {}: recv from invalid rank {} on tag {}", rank_, src, tag));
    }
    if (tag < 0) {
      throw TransportError(fmt::format("loopback rank {}: recv on invalid tag {}", rank_, tag));
    }
    if (!(timeout.count() >= 0)) {
      throw TransportError(
          fmt::format("loopback rank {}: recv with negative timeout {} s", rank_, timeout.count()));
    }
    // Bounded so that a "wait forever" timeout does not overflow the clock.
    const auto wait = std::min(timeout, Seconds(1e7));
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(wait);
    std::unique_lock<std::mutex> lock(state_.mutex);
    auto& box = state_.mailboxes[{rank_, tag}];
    for (;;) {
      const auto it =
          std::find_if(box.begin(), box.end(), [&](const LoopbackWorld::State::Letter& l) {
            return src == transport::kAnySource || l.src == src;
          });
      if (it != box.end()) {
        transport::Received out{it->src, std::move(it->bytes)};
        box.erase(it);
        if (out.bytes.size() > state_.options.max_message_bytes) {
          throw transport::MessageError(
              fmt::format("loopback rank {}: message of {} bytes from rank {} on tag {} exceeds "
                          "max_message_bytes = {} (dropped)",
                          rank_, out.bytes.size(), out.src, tag, state_.options.max_message_bytes),
              out.src);
        }
        return out;
      }
      if (state_.arrived.wait_until(lock, deadline) == std::cv_status::timeout &&
          Clock::now() >= deadline) {
        // One last look: a message may have arrived with the timeout.
        const bool any = std::any_of(box.begin(), box.end(), [&](const auto& l) {
          return src == transport::kAnySource || l.src == src;
        });
        if (!any) {
          throw transport::TimeoutError(
              fmt::format("loopback rank {}: no message from {} on tag {} within {:g} s", rank_,
                          src == transport::kAnySource ? std::string("any source")
                                                       : fmt::format("rank {}", src),
                          tag, timeout.count()));
        }
      }
    }
  }

  transport::Group& world() override { return world_; }

  std::unique_ptr<transport::Group> new_group(const std::vector<int>&) override {
    throw TransportError(
        fmt::format("loopback transport rank {}: new_group is not supported", rank_));
  }

 private:
  transport::SendHandle post(Bytes bytes, int dst, int tag, const char* op) {
    if (dst < 0 || dst >= state_.size) {
      throw TransportError(
          fmt::format("loopback rank {}: {} to invalid rank {} on tag {}", rank_, op, dst, tag));
    }
    if (tag < 0) {
      throw TransportError(
          fmt::format("loopback rank {}: {} to rank {} on invalid tag {}", rank_, op, dst, tag));
    }
    if (bytes.size() > state_.options.max_message_bytes) {
      throw TransportError(
          fmt::format("loopback rank {}: {} of {} bytes to rank {} on tag {} exceeds "
                      "max_message_bytes = {}",
                      rank_, op, bytes.size(), dst, tag, state_.options.max_message_bytes));
    }
    std::lock_guard<std::mutex> lock(state_.mutex);
    if (auto fault = state_.take_fault(dst, tag)) {
      const auto what = [&] {
        return fmt::format("loopback rank {}: {} of {} bytes to rank {} on tag {} failed: {}",
                           rank_, op, bytes.size(), dst, tag, fault->why);
      };
      switch (fault->kind) {
        case LoopbackWorld::State::Fault::kFailSend:
          throw TransportError(what());
        case LoopbackWorld::State::Fault::kFailCompletion:
          if (std::string(op) == "send") throw TransportError(what());
          return transport::SendHandle(std::make_unique<FailedSend>(what(), dst, tag),
                                       state_.options.timeout);
        case LoopbackWorld::State::Fault::kDrop:
          return transport::SendHandle(std::make_unique<DeliveredSend>(dst, tag),
                                       state_.options.timeout);
        case LoopbackWorld::State::Fault::kCorrupt:
          fault->edit(bytes);
          break;
      }
    }
    state_.mailboxes[{dst, tag}].push_back({rank_, std::move(bytes)});
    state_.arrived.notify_all();
    return transport::SendHandle(std::make_unique<DeliveredSend>(dst, tag), state_.options.timeout);
  }

  LoopbackWorld::State& state_;
  const int rank_;
  LoopbackGroup world_;
  transport::TransportOptions options_;  ///< this rank's copy (receive_wait may differ)
};

}  // namespace

LoopbackWorld::LoopbackWorld(int world_size, transport::TransportOptions options) {
  if (world_size < 1) {
    throw std::invalid_argument(
        fmt::format("loopback world: world_size must be >= 1, got {}", world_size));
  }
  state_ = std::make_shared<State>(world_size, std::move(options));
  for (int r = 0; r < world_size; ++r) {
    state_->ranks.push_back(std::make_unique<LoopbackTransport>(*state_, r));
  }
}

LoopbackWorld::~LoopbackWorld() = default;

int LoopbackWorld::size() const { return state_->size; }

transport::Transport& LoopbackWorld::rank(int rank) {
  state_->check_rank(rank, "transport of");
  return *state_->ranks[static_cast<std::size_t>(rank)];
}

void LoopbackWorld::fail_next_send(int dst, int tag, std::string why) {
  state_->check_rank(dst, "fault on");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->faults.push_back({State::Fault::kFailSend, dst, tag, std::move(why), {}});
}

void LoopbackWorld::fail_next_completion(int dst, int tag, std::string why) {
  state_->check_rank(dst, "fault on");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->faults.push_back({State::Fault::kFailCompletion, dst, tag, std::move(why), {}});
}

void LoopbackWorld::drop_next(int dst, int tag) {
  state_->check_rank(dst, "fault on");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->faults.push_back({State::Fault::kDrop, dst, tag, "dropped", {}});
}

void LoopbackWorld::corrupt_next(int dst, int tag, std::function<void(transport::Bytes&)> edit) {
  state_->check_rank(dst, "fault on");
  if (!edit) throw std::invalid_argument("loopback world: corrupt_next needs an edit function");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->faults.push_back({State::Fault::kCorrupt, dst, tag, "corrupted", std::move(edit)});
}

std::size_t LoopbackWorld::queued(int dst, int tag) const {
  state_->check_rank(dst, "mailbox of");
  std::lock_guard<std::mutex> lock(state_->mutex);
  const auto it = state_->mailboxes.find({dst, tag});
  return it == state_->mailboxes.end() ? 0 : it->second.size();
}

std::size_t LoopbackWorld::faults_armed() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->faults.size();
}

}  // namespace gfn::testing
