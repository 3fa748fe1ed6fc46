#include "transport/mpi/mpi_pending_send.h"

#include <fmt/format.h>

namespace gfn::transport::mpi_detail {

MpiPendingSend::MpiPendingSend(std::shared_ptr<MpiSession> session, MPI_Comm comm, Bytes bytes,
                               int dst, int tag, int my_rank)
    : session_(std::move(session)),
      bytes_(std::move(bytes)),
      dst_(dst),
      tag_(tag),
      my_rank_(my_rank) {
  static std::uint8_t empty = 0;
  void* buf = bytes_.empty() ? &empty : bytes_.data();
  const int rc =
      MPI_Isend(buf, static_cast<int>(bytes_.size()), MPI_BYTE, dst_, tag_, comm, &request_);
  if (rc != MPI_SUCCESS) {  // the error text is formatted only on failure (hot path)
    check(rc, fmt::format("rank {}: isend of {} bytes to rank {} on tag {}", my_rank_,
                          bytes_.size(), dst_, tag_));
  }
}

MpiPendingSend::~MpiPendingSend() {
  // SendHandle waits before destroying us; this is a last line of defence so the
  // buffer is never freed under a pending request.
  if (!done_ && request_ != MPI_REQUEST_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Wait(&request_, MPI_STATUS_IGNORE);
  }
}

bool MpiPendingSend::test() {
  if (!error_.empty()) throw TransportError(error_);
  if (done_) return true;
  int flag = 0;
  const int rc = MPI_Test(&request_, &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    done_ = true;  // the request is gone; do not wait on it again
    try {
      check(rc, fmt::format("rank {}: isend of {} bytes to rank {} on tag {} failed", my_rank_,
                            bytes_.size(), dst_, tag_));
    } catch (const TransportError& e) {
      error_ = e.what();  // reported by every later test() and wait()
    }
    throw TransportError(error_);
  }
  done_ = flag != 0;
  return done_;
}

void MpiPendingSend::wait(double timeout_s) {
  Backoff backoff(timeout_s);
  while (!test()) {
    if (!backoff.pause()) {
      if (test()) return;
      throw TimeoutError(fmt::format(
          "rank {}: isend of {} bytes to rank {} on tag {} did not complete within {} s "
          "(is rank {} receiving on tag {}?)",
          my_rank_, bytes_.size(), dst_, tag_, timeout_s, dst_, tag_));
    }
  }
}

}  // namespace gfn::transport::mpi_detail
