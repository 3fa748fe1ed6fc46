#include "transport/mpi/mpi_group.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace gfn::transport::mpi_detail {

namespace {

template <class T>
void divide_in_place(void* data, std::size_t count, int n) {
  T* p = static_cast<T*>(data);
  for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(n));
}

}  // namespace

MpiGroup::MpiGroup(std::shared_ptr<MpiSession> session, MPI_Comm comm, bool owns_comm,
                   std::vector<int> global_ranks, int my_global_rank, double collective_timeout_s,
                   CollectiveDeadline::Expiry on_expiry)
    : session_(std::move(session)),
      comm_(comm),
      owns_comm_(owns_comm),
      ranks_(std::move(global_ranks)),
      my_global_rank_(my_global_rank),
      description_(fmt::format("group [{}]", fmt::join(ranks_, ", "))) {
  const auto it = std::find(ranks_.begin(), ranks_.end(), my_global_rank);
  rank_ = it == ranks_.end() ? -1 : static_cast<int>(it - ranks_.begin());
  // Non-members run no collective of this group: no watchdog.
  deadline_ = std::make_unique<CollectiveDeadline>(rank_ >= 0 ? collective_timeout_s : 0.0,
                                                   my_global_rank, std::move(on_expiry));
}

MpiGroup::~MpiGroup() {
  if (owns_comm_) free_comm(comm_);
}

void MpiGroup::require_member(const char* op) const {
  if (rank_ < 0 || comm_ == MPI_COMM_NULL) {
    throw TransportError(
        fmt::format("{}: global rank {} is not a member of {}", op, my_global_rank_, describe()));
  }
}

int MpiGroup::checked_count(std::size_t count, const char* op) const {
  if (count > static_cast<std::size_t>(INT_MAX)) {
    throw TransportError(fmt::format("{} on {}: count {} exceeds the MPI limit of {} elements", op,
                                     describe(), count, INT_MAX));
  }
  return static_cast<int>(count);
}

void MpiGroup::barrier() {
  require_member("barrier");
  const auto armed = deadline_->arm("MPI_Barrier", describe());
  check(MPI_Barrier(comm_), "MPI_Barrier on " + describe());
}

void MpiGroup::broadcast(void* data, std::size_t count, DType dtype, int root) {
  require_member("broadcast");
  if (root < 0 || root >= size()) {
    throw TransportError(fmt::format("broadcast on {}: root {} is not a group rank (0..{})",
                                     describe(), root, size() - 1));
  }
  const int n = checked_count(count, "broadcast");
  const auto armed = deadline_->arm("MPI_Bcast", describe());
  check(MPI_Bcast(data, n, to_mpi(dtype), root, comm_), "MPI_Bcast on " + describe());
}

void MpiGroup::all_reduce(void* data, std::size_t count, DType dtype, ReduceOp op) {
  require_member("all_reduce");
  const int n = checked_count(count, "all_reduce");
  {
    const auto armed = deadline_->arm("MPI_Allreduce", describe());
    check(MPI_Allreduce(MPI_IN_PLACE, data, n, to_mpi(dtype), to_mpi(op), comm_),
          "MPI_Allreduce on " + describe());
  }
  if (op != ReduceOp::kAvg) return;
  const int members = size();
  switch (dtype) {
    case DType::kUInt8:
      divide_in_place<std::uint8_t>(data, count, members);
      break;
    case DType::kInt32:
      divide_in_place<std::int32_t>(data, count, members);
      break;
    case DType::kInt64:
      divide_in_place<std::int64_t>(data, count, members);
      break;
    case DType::kFloat32:
      divide_in_place<float>(data, count, members);
      break;
    case DType::kFloat64:
      divide_in_place<double>(data, count, members);
      break;
  }
}

void MpiGroup::all_gather(const void* in, std::size_t count, DType dtype, void* out) {
  require_member("all_gather");
  const int n = checked_count(count, "all_gather");
  const MPI_Datatype t = to_mpi(dtype);
  const auto armed = deadline_->arm("MPI_Allgather", describe());
  check(MPI_Allgather(in, n, t, out, n, t, comm_), "MPI_Allgather on " + describe());
}

}  // namespace gfn::transport::mpi_detail
