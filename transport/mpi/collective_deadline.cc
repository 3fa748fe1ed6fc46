#include "transport/mpi/collective_deadline.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace gfn::transport::mpi_detail {

namespace {

void end_rank(const std::string& message) {
  spdlog::critical("{}; ending this rank", message);
  spdlog::default_logger()->flush();
  std::fflush(nullptr);
  std::_Exit(1);
}

}  // namespace

CollectiveDeadline::CollectiveDeadline(double timeout_s, int global_rank, Expiry on_expiry)
    : timeout_s_(timeout_s > 0 && std::isfinite(timeout_s) ? timeout_s : 0.0),
      global_rank_(global_rank),
      on_expiry_(on_expiry ? std::move(on_expiry) : Expiry(end_rank)) {
  if (timeout_s_ > 0) watchdog_ = std::thread([this] { watch(); });
}

CollectiveDeadline::~CollectiveDeadline() {
  if (!watchdog_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

CollectiveDeadline::Guard CollectiveDeadline::arm(const char* operation, const std::string& group) {
  if (timeout_s_ <= 0) return Guard(nullptr);
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = true;
  fired_ = false;
  deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(timeout_s_));
  operation_ = operation;
  group_ = group;
  return Guard(this);
}

void CollectiveDeadline::disarm() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = false;
}

CollectiveDeadline::Guard::~Guard() {
  if (owner_ != nullptr) owner_->disarm();
}

// The watchdog needs no notification on arm: when idle it wakes every timeout_s, which is
// never later than the deadline of a collective armed meanwhile.
void CollectiveDeadline::watch() {
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const auto now = Clock::now();
    if (armed_ && !fired_ && now >= deadline_) {
      fired_ = true;
      const std::string message = fmt::format(
          "rank {}: {} on {} did not complete within {} s: a member is stopped, hung or not "
          "calling it",
          global_rank_, operation_, group_, timeout_s_);
      lock.unlock();
      on_expiry_(message);
      lock.lock();
      continue;
    }
    wake_.wait_until(lock, armed_ && !fired_ ? deadline_ : now + period);
  }
}

}  // namespace gfn::transport::mpi_detail
