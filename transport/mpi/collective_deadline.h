#pragma once
// Internal: a deadline for the MPI collectives of transport/mpi/mpi_group.h (barrier,
// broadcast, all-reduce, all-gather). MPI's blocking collectives cannot time out, so a
// member that is stopped (SIGSTOP), hung, or never calls the collective would keep the
// others waiting forever; the model average of a world of trainers is such a collective.
//
// A CollectiveDeadline owns one watchdog thread. MpiGroup arms it around every blocking
// collective (Guard: armed for the guard's lifetime); if a collective is still running
// `timeout_s` after it was armed, the watchdog calls the expiry action once for it with a
// message naming the operation, the group and the bound. The default action logs the message
// (spdlog critical) and ends the rank with exit code 1 without finalizing MPI, like a failed
// rank (roles/run_job.cc), so the launcher ends the job: the running MPI call cannot be
// cancelled, and the buffer under it must not be freed. Tests pass an action that records.
//
// Thread-safety: arm() may be called from any thread; one collective at a time per object
// is armed (MPI collectives on one communicator are issued by one thread). Cost: one
// uncontended mutex lock per arm and per disarm; the watchdog wakes once per timeout_s
// when idle. Blocking: none (the watchdog waits on its own thread).

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "transport/transport.h"

namespace gfn::transport::mpi_detail {

/// The MPI transport bounds its groups' collectives by this many times transport.timeout_s
/// (transport/transport.h).
using gfn::transport::kCollectiveTimeoutFactor;

class CollectiveDeadline {
 public:
  using Clock = std::chrono::steady_clock;
  /// Called on the watchdog thread with the message; the default ends the rank.
  using Expiry = std::function<void(const std::string& message)>;

  /// `timeout_s` > 0 and finite: collectives are bounded by it; otherwise (0, negative,
  /// infinite) they are not, and no thread is started. `global_rank` names this rank in
  /// the message. An empty `on_expiry` is the default action.
  CollectiveDeadline(double timeout_s, int global_rank, Expiry on_expiry = {});
  ~CollectiveDeadline();
  CollectiveDeadline(const CollectiveDeadline&) = delete;
  CollectiveDeadline& operator=(const CollectiveDeadline&) = delete;

  /// Armed from construction to destruction.
  class Guard {
   public:
    Guard(Guard&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    Guard& operator=(Guard&&) = delete;
    ~Guard();

   private:
    friend class CollectiveDeadline;
    explicit Guard(CollectiveDeadline* owner) : owner_(owner) {}
    CollectiveDeadline* owner_;
  };

  /// Arms the deadline for the collective `operation` (e.g. "MPI_Allreduce") on `group`
  /// (e.g. "group [0, 1]"); both are copied only when a deadline is configured.
  [[nodiscard]] Guard arm(const char* operation, const std::string& group);

  double timeout_s() const { return timeout_s_; }

 private:
  void disarm();
  void watch();

  const double timeout_s_;
  const int global_rank_;
  const Expiry on_expiry_;
  std::mutex mutex_;
  std::condition_variable wake_;  ///< notified on destruction only
  bool stopping_ = false;
  bool armed_ = false;
  bool fired_ = false;  ///< the current arming already expired
  Clock::time_point deadline_;
  std::string operation_, group_;
  std::thread watchdog_;
};

}  // namespace gfn::transport::mpi_detail
