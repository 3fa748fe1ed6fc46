#pragma once
// Async send handle in the spirit of c10d's Work (torch/csrc/distributed/c10d/Work.hpp):
// is_complete() polls, wait() blocks, and a failed send's error is stored in the handle
// and rethrown by every later wait() and is_complete(). The handle owns the payload
// buffer until the send has completed. Mirrors torchgfn's
// gfn.utils.distributed.AsyncSendHandle.
//
// Blocking: wait() without an argument is bounded by the timeout the transport gave the
// handle (TransportOptions::timeout, YAML transport.timeout_s). A handle destroyed (or
// assigned over) while its send is pending waits for it at most that long; if the send is
// still stuck then, the rank ends (std::abort) after logging an error naming the peer and
// the tag: a buffer is never freed under a pending send, and a rank never hangs forever.
// Under mpirun (or gfn-launch) the launcher then ends the whole job.

#include <chrono>
#include <exception>
#include <memory>

namespace gfn::transport {

/// Backend-side state of one pending send; owns the payload buffer. Implemented by each
/// backend (transport/mpi/mpi_pending_send.h, transport/gloo/gloo_send.h) and by test
/// doubles that fail on demand (tests/transport/send_handle_test.cc).
class PendingSend {
 public:
  virtual ~PendingSend() = default;
  /// Non-blocking completion test. Throws TransportError if the send failed.
  virtual bool test() = 0;
  /// Blocks until complete or until `timeout_s` seconds pass (TimeoutError; the send
  /// stays pending and may be waited for again). `timeout_s` < 0: no deadline.
  /// Throws TransportError if the send failed.
  virtual void wait(double timeout_s) = 0;
  /// Global rank the payload is sent to (for error messages).
  virtual int peer() const = 0;
  /// Tag of the send (for error messages).
  virtual int tag() const = 0;
};

/// Handle of one Transport::isend. Thread-compatible, not thread-safe: one thread uses a
/// handle at a time. Cost: is_complete() is one backend poll (MPI_Test, or a mutex for
/// the torch backend) until completion, then free.
class SendHandle {
 public:
  /// Default timeout of a handle built without one (the default transport.timeout_s).
  static constexpr double kDefaultTimeoutS = 300.0;

  /// An empty handle: complete, nothing to wait for.
  SendHandle() = default;
  /// Owns `pending`; `timeout` (seconds, >= 0) bounds wait() and the destructor's wait.
  explicit SendHandle(
      std::unique_ptr<PendingSend> pending,
      std::chrono::duration<double> timeout = std::chrono::duration<double>(kDefaultTimeoutS))
      : pending_(std::move(pending)), timeout_(timeout) {}
  SendHandle(SendHandle&&) noexcept = default;
  /// Finishes the old send first, as the destructor does.
  SendHandle& operator=(SendHandle&& other) noexcept;
  SendHandle(const SendHandle&) = delete;
  SendHandle& operator=(const SendHandle&) = delete;
  /// Waits for an incomplete send at most timeout(); a send error is logged, not
  /// thrown; a send still pending after timeout() ends the rank (std::abort) with an
  /// error naming the peer and the tag.
  ~SendHandle();

  /// True once the send completed (an empty handle is complete). Non-blocking.
  /// Throws TransportError if the send failed — on this call and on every later one.
  bool is_complete();
  /// Blocks until the send completes, at most timeout(); see wait(timeout).
  void wait();
  /// Blocks until the send completes; throws TimeoutError after `timeout` (seconds; the
  /// send stays pending and may be waited for again), TransportError if the send failed
  /// (the error is stored: every later wait() and is_complete() rethrows it).
  void wait(std::chrono::duration<double> timeout);
  /// The bound of wait() and of the destructor's wait (seconds).
  std::chrono::duration<double> timeout() const { return timeout_; }

 private:
  /// Runs a backend call; stores any error but a timeout, and rethrows it.
  template <class F>
  auto guarded(F&& call) -> decltype(call());
  void finish_or_end_rank() noexcept;

  std::unique_ptr<PendingSend> pending_;
  std::chrono::duration<double> timeout_{kDefaultTimeoutS};
  bool complete_ = false;
  std::exception_ptr error_;  ///< the send's failure, rethrown by every later call
};

}  // namespace gfn::transport
