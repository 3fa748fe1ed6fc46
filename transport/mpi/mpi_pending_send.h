#pragma once
// Internal: the PendingSend of an MPI_Isend. Owns the payload and the request.

#include <mpi.h>

#include <memory>
#include <string>

#include "transport/mpi/mpi_util.h"
#include "transport/send_handle.h"
#include "transport/transport.h"

namespace gfn::transport::mpi_detail {

class MpiPendingSend final : public PendingSend {
 public:
  /// Posts MPI_Isend of `bytes` to `dst` on `tag` over `comm`; throws TransportError.
  MpiPendingSend(std::shared_ptr<MpiSession> session, MPI_Comm comm, Bytes bytes, int dst, int tag,
                 int my_rank);
  ~MpiPendingSend() override;

  /// Polls MPI_Test. A failure throws TransportError on this call and every later one.
  bool test() override;
  void wait(double timeout_s) override;
  int peer() const override { return dst_; }
  int tag() const override { return tag_; }

 private:
  std::shared_ptr<MpiSession> session_;  // keeps MPI initialized while the request lives
  Bytes bytes_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  int dst_;
  int tag_;
  int my_rank_;
  bool done_ = false;
  std::string error_;  ///< non-empty once the send failed (the request is gone)
};

}  // namespace gfn::transport::mpi_detail
