#pragma once
// Internal: sends of the torch backend. A send posts the length message (tag 2t)
// and the payload message (tag 2t+1) under one lock; a completion thread per
// (destination, tag) waits on the c10d Work objects in posting order (the receiver
// consumes one (peer, tag) stream in order, so sends on it complete in order) and
// wakes the SendHandles. No Gloo timeout is ever hit by a caller's wait.

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "transport/gloo/gloo_util.h"
#include "transport/send_handle.h"

namespace gfn::transport::gloo_detail {

/// One posted send: owns the length tensor, the payload bytes and both Works.
struct SendState {
  int dst = -1;
  int tag = -1;
  Bytes payload;
  at::Tensor length_tensor;   ///< int64[1]
  at::Tensor payload_tensor;  ///< uint8[payload.size()], views `payload`
  c10::intrusive_ptr<c10d::Work> length_work;
  c10::intrusive_ptr<c10d::Work> payload_work;

  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;  ///< TransportError if the send failed

  /// Blocks (completion thread) until both Works finished; records the outcome.
  void run() noexcept;
  /// Waits until done or `deadline`; returns false on timeout. Rethrows the error.
  bool wait_until(Clock::time_point deadline);
  /// Non-blocking: true if done; rethrows the error.
  bool test();
};

/// Posts sends and runs the completion threads. Shared by the transport and every
/// outstanding PendingSend (which keep it, and so the process group, alive).
class SendEngine {
 public:
  explicit SendEngine(std::shared_ptr<GlooSession> session);
  /// Aborts still-pending sends and joins the completion threads.
  ~SendEngine();
  SendEngine(const SendEngine&) = delete;
  SendEngine& operator=(const SendEngine&) = delete;

  /// Posts the two messages of `payload` to `dst` on `tag` (validated by the caller).
  std::shared_ptr<SendState> post(Bytes payload, int dst, int tag);

 private:
  struct Completer {
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::shared_ptr<SendState>> queue;
    bool stop = false;
    std::thread thread;
  };
  void run_completer(Completer& c);

  std::shared_ptr<GlooSession> session_;
  std::mutex post_mutex_;  // serializes posting (both messages of a send are adjacent)
  std::map<std::pair<int, int>, std::unique_ptr<Completer>> completers_;
};

/// The SendHandle backend of an isend.
class GlooPendingSend final : public PendingSend {
 public:
  GlooPendingSend(std::shared_ptr<SendEngine> engine, std::shared_ptr<SendState> state)
      : engine_(std::move(engine)), state_(std::move(state)) {}
  bool test() override;
  void wait(double timeout_s) override;
  int peer() const override { return state_->dst; }
  int tag() const override { return state_->tag; }

 private:
  std::shared_ptr<SendEngine> engine_;
  std::shared_ptr<SendState> state_;
};

/// Waits for `state` up to `timeout`; throws TimeoutError naming peer and tag.
void wait_send(SendState& state, Seconds timeout);

}  // namespace gfn::transport::gloo_detail
