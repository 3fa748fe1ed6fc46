#include "transport/mpi/mpi_util.h"

#include <spdlog/spdlog.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <thread>

namespace gfn::transport::mpi_detail {

void check(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw TransportError(what + ": MPI error: " + std::string(text, static_cast<std::size_t>(len)));
}

MPI_Datatype to_mpi(DType dtype) {
  switch (dtype) {
    case DType::kUInt8:
      return MPI_UINT8_T;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
  }
  throw TransportError("unknown DType value " + std::to_string(static_cast<int>(dtype)));
}

MPI_Op to_mpi(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      return MPI_SUM;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
  }
  throw TransportError("unknown ReduceOp value " + std::to_string(static_cast<int>(op)));
}

MpiSession::MpiSession() {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (!initialized) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    initialized_here_ = true;
    if (provided < MPI_THREAD_MULTIPLE) {
      spdlog::warn(
          "MPI provides thread level {} < MPI_THREAD_MULTIPLE: use the transport from one "
          "thread at a time",
          provided);
    }
    return;
  }
  int finalized = 0;
  check(MPI_Finalized(&finalized), "MPI_Finalized");
  if (finalized) throw TransportError("MPI was already finalized: cannot create an MPI transport");
  int provided = 0;
  check(MPI_Query_thread(&provided), "MPI_Query_thread");
  if (provided < MPI_THREAD_SERIALIZED) {
    throw TransportError(
        "MPI was initialized with thread level " + std::to_string(provided) +
        " (below MPI_THREAD_SERIALIZED); initialize it with MPI_Init_thread(MPI_THREAD_MULTIPLE) "
        "or let the transport initialize it");
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    spdlog::warn(
        "MPI was initialized below MPI_THREAD_MULTIPLE: use the transport from one "
        "thread at a time");
  }
}

MpiSession::~MpiSession() {
  if (!initialized_here_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void free_comm(MPI_Comm& comm) noexcept {
  if (comm == MPI_COMM_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
}

Backoff::Backoff(double timeout_s, ReceiveWait wait)
    : start_(Clock::now()),
      has_deadline_(timeout_s >= 0.0 && std::isfinite(timeout_s)),
      wait_(wait) {
  if (has_deadline_) {
    // Cap at a year so the time_point arithmetic cannot overflow.
    const double capped = std::min(timeout_s, 3.15e7);
    deadline_ =
        start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(capped));
  }
}

Backoff::Step Backoff::step_after(Clock::duration waited, ReceiveWait wait) {
  // Spin while the answer is likely to come soon: a ping-pong partner answers within
  // microseconds, and a transfer of up to ~1 MiB completes within a few hundred. Sleeping
  // there costs more than it saves: a sleep lasts >= ~60 us (timer slack), and once one
  // side oversleeps, the other side's wait exceeds a short spin window too, so both end
  // up sleeping on every message (measured: 1 MiB round trips 1.7-2x raw MPI with a
  // 50 us window; tools/gfn-transport-bench). kSleep trades that latency for the core.
  constexpr auto kPureSpin = std::chrono::microseconds(20);
  constexpr auto kYieldSpin = std::chrono::microseconds(1000);
  constexpr auto kMinSleep = std::chrono::microseconds(50);
  constexpr auto kMaxSleep = std::chrono::microseconds(500);
  if (waited < kPureSpin) return {Step::kSpin, {}};
  if (wait == ReceiveWait::kSpin && waited < kYieldSpin) return {Step::kYield, {}};
  // Then sleep 1/16 of the time waited so far (50 us .. 500 us): a late wake-up adds at
  // most ~6 % to a long wait, and an idle rank wakes up at most ~2000 times a second.
  auto pause = std::chrono::duration_cast<std::chrono::microseconds>(waited / 16);
  return {Step::kSleep, std::clamp(pause, kMinSleep, kMaxSleep)};
}

bool Backoff::pause() {
  const auto now = Clock::now();
  if (has_deadline_ && now >= deadline_) return false;
  auto step = step_after(now - start_, wait_);
  if (step.kind == Step::kYield) {
    std::this_thread::yield();  // let another process on this core run (oversubscription)
  } else if (step.kind == Step::kSleep) {
    if (has_deadline_) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline_ - now);
      step.sleep = std::min(step.sleep, left);
    }
    std::this_thread::sleep_for(step.sleep);
  }
  return true;
}

DiscardBuffer::DiscardBuffer(std::size_t size, std::size_t chunk) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  chunk = std::max(page, (chunk + page - 1) / page * page);
  const std::size_t windows = std::max<std::size_t>(1, (size + chunk - 1) / chunk);
  fd_ = memfd_create("gfn-discard", MFD_CLOEXEC);
  if (fd_ < 0) throw TransportError(std::string("memfd_create: ") + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(chunk)) != 0) {
    const int err = errno;
    close(fd_);
    throw TransportError(std::string("ftruncate of the discard buffer: ") + std::strerror(err));
  }
  mapped_ = windows * chunk;
  base_ = mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base_ == MAP_FAILED) {
    const int err = errno;
    base_ = nullptr;
    close(fd_);
    throw TransportError(std::string("reserving the discard buffer: ") + std::strerror(err));
  }
  for (std::size_t i = 0; i < windows; ++i) {
    void* at = static_cast<char*>(base_) + i * chunk;
    if (mmap(at, chunk, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd_, 0) == MAP_FAILED) {
      const int err = errno;
      munmap(base_, mapped_);
      close(fd_);
      base_ = nullptr;
      throw TransportError(std::string("mapping the discard buffer: ") + std::strerror(err));
    }
  }
}

DiscardBuffer::~DiscardBuffer() {
  if (base_ != nullptr) munmap(base_, mapped_);
  if (fd_ >= 0) close(fd_);
}

std::string peer_name(int rank) {
  return rank == kAnySource ? std::string("any source") : "rank " + std::to_string(rank);
}

}  // namespace gfn::transport::mpi_detail
