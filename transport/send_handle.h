#pragma once
// Async send handle in the spirit of c10d's Work:
// is_complete() polls, wait(timeout) blocks and rethrows a send error, and the
// handle owns the payload buffer until the send has completed. Destroying an
// incomplete handle waits for completion (it never frees a buffer under a pending
// send). Mirrors torchgfn's gfn.utils.distributed.AsyncSendHandle.

#include <chrono>
#include <memory>

namespace gfn::transport {

/// Backend-side state of one pending send; owns the payload buffer.
class PendingSend {
 public:
  virtual ~PendingSend() = default;
  /// Non-blocking completion test. Throws TransportError if the send failed.
  virtual bool test() = 0;
  /// Blocks until complete or until `timeout_s` seconds pass (TimeoutError).
  virtual void wait(double timeout_s) = 0;
};

class SendHandle {
 public:
  SendHandle() = default;
  explicit SendHandle(std::unique_ptr<PendingSend> pending) : pending_(std::move(pending)) {}
  SendHandle(SendHandle&&) noexcept = default;
  SendHandle& operator=(SendHandle&& other) noexcept;
  SendHandle(const SendHandle&) = delete;
  SendHandle& operator=(const SendHandle&) = delete;
  /// Waits for an incomplete send (no timeout; errors are logged, not thrown).
  ~SendHandle();

  /// True once the send completed (an empty handle is complete). Non-blocking.
  /// Throws TransportError if the send failed.
  bool is_complete();
  /// Blocks until the send completes; throws TimeoutError after `timeout`
  /// (seconds), TransportError if the send failed. Thread-compatible, not thread-safe.
  void wait(std::chrono::duration<double> timeout = std::chrono::hours(24));

 private:
  void finish_quietly() noexcept;
  std::unique_ptr<PendingSend> pending_;
  bool complete_ = false;
};

}  // namespace gfn::transport
