#pragma once
// Graceful stop on SIGINT / SIGTERM / SIGUSR1 (docs/architecture.md, "Shutdown"; SIGUSR1 is
// what Slurm's `--signal=B:USR1@120` sends before a time limit or preemption; with
// checkpoint.on_signal the trainers checkpoint before stopping, README "Checkpoint and
// resume"), with a Boost.Asio signal_set served by a background thread. Trainers poll
// stop_requested() once per iteration, finish the iteration, drain pending messages and send
// TRAINER_EXIT; managers and the coordinator keep serving until their peers have exited.

#include <atomic>
#include <memory>
#include <string>
#include <thread>

namespace gfn::signals {

class StopSignal {
 public:
  /// Installs handlers for SIGINT, SIGTERM and SIGUSR1 for the lifetime of the object.
  /// At most one StopSignal may exist at a time (throws std::logic_error).
  StopSignal();
  /// Restores the default handlers and joins the background thread.
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  /// True once SIGINT, SIGTERM or SIGUSR1 was received. Thread-safe, non-blocking.
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }
  /// Name of the signal received ("SIGINT", "SIGTERM", "SIGUSR1"), or "" if none.
  std::string signal_name() const;
  /// Requests a stop as if a signal had arrived (tests, internal shutdown).
  void request_stop() { stop_.store(true); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> stop_{false};
  std::atomic<int> signal_number_{0};
};

}  // namespace gfn::signals
