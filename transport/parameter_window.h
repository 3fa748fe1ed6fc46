#pragma once
// One-sided parameter windows (spawn.policy donor_pull; docs/spawn.md "Spawn policies"): every
// member of a group exposes `count` float32 values (its flat parameters and a small header)
// that any other member reads without the owner's participation. MPI backend only: an MPI
// window (MPI_Alloc_mem + MPI_Win_create over the group's communicator); reads are
// passive-target epochs (MPI_Win_lock(MPI_LOCK_SHARED) + MPI_Get + MPI_Win_unlock), the
// owner's refresh an exclusive epoch on its own window, so a reader sees one refresh whole,
// never a mix of two. Source: torchgfn tutorials/examples/multinode/spawn_policy.py
// (AsyncSelectiveAveragingPolicympi4pyV2: one buffer of every parameter, MPI.Win.Create,
// Lock(LOCK_SHARED) + Get). The transport is the only place that calls MPI.
//
// Lifetime: creation and close() are collective over the group (every member, in the same
// order as its other collectives). close() (MPI_Win_free) returns on a member only when
// every member has called it, so no read can target a freed window: call it when the
// group's members are done reading (end of training), before the transport goes away. The
// destructor closes a window that was not closed (collective as well).
//
// A group of one needs no MPI window: its member reads its own values from local memory.
//
// Thread-safety: one thread per window. Errors: TransportError (backend failure, a group
// rank out of range, a read beyond count(), this rank not a member).

#include <cstddef>
#include <memory>

namespace gfn::transport {

class Group;

class ParameterWindow {
 public:
  virtual ~ParameterWindow() = default;
  /// Float32 values each member exposes.
  virtual std::size_t count() const = 0;
  /// Copies values[0, count()) into this member's window (exclusive lock on itself; waits
  /// for readers holding a shared lock on it). Cost: O(count) local copy.
  virtual void expose(const float* values) = 0;
  /// Reads values [offset, offset + n) of member `group_rank`'s window into `out`, as the
  /// owner last exposed them (a shared-lock epoch; blocking until the data is here, without
  /// the owner's participation). Cost: n * 4 bytes over the network.
  virtual void read(int group_rank, std::size_t offset, std::size_t n, float* out) = 0;
  /// Frees the window (collective, see above). Idempotent.
  virtual void close() = 0;
};

/// A window of `count` float32 values per member of `group` (zero-filled). Collective over
/// the group. Throws TransportError if `group` is not an mpi-backend group ("parameter
/// windows need transport.backend mpi") or this rank is not a member.
std::unique_ptr<ParameterWindow> make_parameter_window(Group& group, std::size_t count);

}  // namespace gfn::transport
