// The MPI implementation of transport/parameter_window.h. A group of one has no MPI window
// (Open MPI 4.1 refuses MPI_Win_create on a one-rank communicator here): its only member
// reads its own values from local memory.

#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <cstring>

#include "transport/errors.h"
#include "transport/mpi/mpi_group.h"
#include "transport/parameter_window.h"

namespace gfn::transport {
namespace {

using mpi_detail::check;

class MpiParameterWindow final : public ParameterWindow {
 public:
  MpiParameterWindow(mpi_detail::MpiGroup& group, std::size_t count)
      : session_(group.session()), count_(count), rank_(group.rank()), size_(group.size()) {
    if (count > static_cast<std::size_t>(INT_MAX)) {
      throw TransportError(fmt::format("parameter window: {} values exceed the MPI limit", count));
    }
    const auto bytes = static_cast<MPI_Aint>(count * sizeof(float));
    check(MPI_Alloc_mem(bytes > 0 ? bytes : 1, MPI_INFO_NULL, &base_), "MPI_Alloc_mem (window)");
    std::memset(base_, 0, static_cast<std::size_t>(bytes));
    if (size_ == 1) return;  // a group of one reads only itself: no MPI window (see read())
    const int rc = MPI_Win_create(base_, bytes, static_cast<int>(sizeof(float)), MPI_INFO_NULL,
                                  group.comm(), &win_);
    if (rc != MPI_SUCCESS) {
      MPI_Free_mem(base_);
      check(rc, "MPI_Win_create");
    }
  }

  ~MpiParameterWindow() override {
    try {
      close();
    } catch (const std::exception&) {
      // A destructor does not throw; close() already freed what it could.
    }
  }

  std::size_t count() const override { return count_; }

  void expose(const float* values) override {
    require_open("expose");
    if (size_ == 1) {
      std::memcpy(base_, values, count_ * sizeof(float));
      return;
    }
    check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win_), "MPI_Win_lock (exclusive, own)");
    std::memcpy(base_, values, count_ * sizeof(float));
    check(MPI_Win_unlock(rank_, win_), "MPI_Win_unlock (own)");
  }

  void read(int group_rank, std::size_t offset, std::size_t n, float* out) override {
    require_open("read");
    if (group_rank < 0 || group_rank >= size_) {
      throw TransportError(fmt::format("parameter window: read from group rank {} of a group of {}",
                                       group_rank, size_));
    }
    if (offset > count_ || n > count_ - offset) {
      throw TransportError(fmt::format("parameter window: read of [{}, {}) beyond its {} values",
                                       offset, offset + n, count_));
    }
    if (size_ == 1) {
      std::memcpy(out, static_cast<const float*>(base_) + offset, n * sizeof(float));
      return;
    }
    check(MPI_Win_lock(MPI_LOCK_SHARED, group_rank, 0, win_), "MPI_Win_lock (shared)");
    const int rc = MPI_Get(out, static_cast<int>(n), MPI_FLOAT, group_rank,
                           static_cast<MPI_Aint>(offset), static_cast<int>(n), MPI_FLOAT, win_);
    const int rc_unlock = MPI_Win_unlock(group_rank, win_);  // completes the MPI_Get
    check(rc, "MPI_Get");
    check(rc_unlock, "MPI_Win_unlock");
  }

  void close() override {
    if (base_ == nullptr) return;
    if (size_ == 1) {
      MPI_Free_mem(base_);
      base_ = nullptr;
      return;
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {  // too late to free anything; MPI released it
      win_ = MPI_WIN_NULL;
      base_ = nullptr;
      return;
    }
    const int rc = MPI_Win_free(&win_);
    win_ = MPI_WIN_NULL;
    MPI_Free_mem(base_);
    base_ = nullptr;
    check(rc, "MPI_Win_free");
  }

 private:
  void require_open(const char* op) const {
    if (base_ == nullptr) {
      throw TransportError(fmt::format("parameter window: {} after close()", op));
    }
  }

  std::shared_ptr<mpi_detail::MpiSession> session_;  // MPI outlives the window
  std::size_t count_;
  int rank_;
  int size_;
  void* base_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace

std::unique_ptr<ParameterWindow> make_parameter_window(Group& group, std::size_t count) {
  auto* mpi_group = dynamic_cast<mpi_detail::MpiGroup*>(&group);
  if (mpi_group == nullptr) {
    throw TransportError(
        "parameter windows need transport.backend mpi (MPI one-sided windows); this group "
        "belongs to another backend");
  }
  if (mpi_group->rank() < 0 || mpi_group->comm() == MPI_COMM_NULL) {
    throw TransportError("parameter window: this rank is not a member of the group");
  }
  return std::make_unique<MpiParameterWindow>(*mpi_group, count);
}

}  // namespace gfn::transport
