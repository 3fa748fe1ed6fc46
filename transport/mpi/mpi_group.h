#pragma once
// Internal: a Group backed by an MPI communicator (not part of the public API;
// obtain groups from Transport::world() / Transport::new_group()).

#include <mpi.h>

#include <memory>
#include <vector>

#include "transport/mpi/collective_deadline.h"
#include "transport/mpi/mpi_util.h"
#include "transport/transport.h"

namespace gfn::transport::mpi_detail {

class MpiGroup final : public Group {
 public:
  /// `comm` is MPI_COMM_NULL on non-members. If `owns_comm`, the destructor frees it.
  /// Every collective of a member is bounded by `collective_timeout_s` (> 0 and finite;
  /// else unbounded): past it `on_expiry` runs, by default ending the rank
  /// (transport/mpi/collective_deadline.h).
  MpiGroup(std::shared_ptr<MpiSession> session, MPI_Comm comm, bool owns_comm,
           std::vector<int> global_ranks, int my_global_rank, double collective_timeout_s = 0,
           CollectiveDeadline::Expiry on_expiry = {});
  ~MpiGroup() override;

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(ranks_.size()); }
  const std::vector<int>& global_ranks() const override { return ranks_; }

  void barrier() override;
  void broadcast(void* data, std::size_t count, DType dtype, int root) override;
  void all_reduce(void* data, std::size_t count, DType dtype, ReduceOp op) override;
  void all_gather(const void* in, std::size_t count, DType dtype, void* out) override;

  /// The communicator (MPI_COMM_NULL on non-members) and the session keeping MPI alive:
  /// for MPI objects built on the group (transport/mpi/mpi_window.h).
  MPI_Comm comm() const { return comm_; }
  const std::shared_ptr<MpiSession>& session() const { return session_; }

 private:
  /// Throws TransportError naming `op` unless this rank is a member.
  void require_member(const char* op) const;
  int checked_count(std::size_t count, const char* op) const;
  const std::string& describe() const { return description_; }

  std::shared_ptr<MpiSession> session_;
  MPI_Comm comm_;
  bool owns_comm_;
  std::vector<int> ranks_;
  int rank_ = -1;
  int my_global_rank_ = -1;
  std::string description_;  ///< "group [0, 1, ...]"
  std::unique_ptr<CollectiveDeadline> deadline_;
};

}  // namespace gfn::transport::mpi_detail
