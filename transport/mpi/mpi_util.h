#pragma once
// Internal helpers of the MPI backend (not part of the public API).

#include <mpi.h>

#include <chrono>
#include <memory>
#include <string>

#include "transport/transport.h"

namespace gfn::transport::mpi_detail {

/// Throws TransportError("<what>: <MPI error string>") if rc != MPI_SUCCESS.
void check(int rc, const std::string& what);

MPI_Datatype to_mpi(DType dtype);
MPI_Op to_mpi(ReduceOp op);

/// Keeps MPI alive: initializes it if needed, finalizes it (if it initialized it)
/// when the last owner (transport, groups, pending sends) lets go.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool initialized_here() const { return initialized_here_; }

 private:
  bool initialized_here_ = false;
};

/// Frees `comm` unless it is null or MPI is already finalized. Never throws.
void free_comm(MPI_Comm& comm) noexcept;

/// Polling schedule for MPI_Test / MPI_Improbe loops: spin for 20 us, then (kSpin only)
/// spin yielding the core (sched_yield) up to 1 ms (latency: ping-pongs and transfers up
/// to ~1 MiB never sleep), then sleep 1/16 of the time waited so far, 50 us .. 500 us (so
/// a waiting rank does not burn a core), never beyond the deadline. kSleep skips the
/// yielding window: a rank that waits most of its time leaves its core to the others.
class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  /// `timeout_s` < 0 or infinite: no deadline.
  explicit Backoff(double timeout_s, ReceiveWait wait = ReceiveWait::kSpin);
  /// Pauses once; returns false if the deadline has passed (caller gives up).
  bool pause();

  /// What one pause does after `waited` of polling under `wait` (no deadline):
  /// kSpin returns at once, kYield yields the core, kSleep sleeps `sleep`.
  struct Step {
    enum Kind { kSpin, kYield, kSleep } kind = kSpin;
    std::chrono::microseconds sleep{0};
  };
  /// The schedule of the class comment as a pure function. Thread-safe.
  static Step step_after(Clock::duration waited, ReceiveWait wait);

 private:
  Clock::time_point start_;
  Clock::time_point deadline_;
  bool has_deadline_;
  ReceiveWait wait_;
};

/// A writable buffer of `size` bytes (virtual) backed by only `chunk` bytes of
/// memory: a memfd of `chunk` bytes mapped again and again over the range, so
/// every chunk-sized window aliases the same pages. Used to consume an oversized
/// message whole (MPI_Mrecv into a truncating 1-byte buffer is not safe: Open
/// MPI's vader single-copy path writes the full message and segfaults).
/// Throws TransportError if the mapping fails. Not thread-safe (one per receive).
class DiscardBuffer {
 public:
  explicit DiscardBuffer(std::size_t size, std::size_t chunk = std::size_t{1} << 20);
  ~DiscardBuffer();
  DiscardBuffer(const DiscardBuffer&) = delete;
  DiscardBuffer& operator=(const DiscardBuffer&) = delete;
  void* data() { return base_; }

 private:
  void* base_ = nullptr;
  std::size_t mapped_ = 0;
  int fd_ = -1;
};

/// "rank 3" or "any source".
std::string peer_name(int rank);

}  // namespace gfn::transport::mpi_detail
