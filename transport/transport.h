#pragma once
// The narrow transport interface of gfn-runtime (docs/architecture.md).
//
// Backends (transport/mpi/, transport/gloo/) implement only the pure virtual
// primitives below; framing (transport/framing/) and helpers such as the byte gathers
// (transport/gather.h) are written once above them, and model averaging above the
// transport (runtime/distributed/model_averaging.h), as Horovod splits Controller from
// MPIController/GlooController.
//
// Mirrors gfn.utils.distributed (torchgfn): send / isend / recv / AsyncSendHandle,
// barrier / broadcast / all_reduce / all_gather / get_rank / get_world_size.
//
// Ranks are global ranks (0 .. world_size-1) unless a method says "group rank".
// Payloads are raw bytes; they arrive byte-identical for any size from 0 bytes up
// to TransportOptions::max_message_bytes.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transport/bytes.h"
#include "transport/errors.h"
#include "transport/send_handle.h"

namespace gfn::transport {

using Seconds = std::chrono::duration<double>;

/// Wildcard source for Transport::recv.
constexpr int kAnySource = -1;

// Tags are the caller's: the transport reserves none (its collectives run on groups, not
// on point-to-point tags). The protocol's channels are in roles/protocol/messages.h.

enum class ReduceOp { kSum, kMax, kMin, kAvg };
enum class DType { kUInt8, kInt32, kInt64, kFloat32, kFloat64 };

/// Size in bytes of one element of `dtype`.
std::size_t dtype_size(DType dtype);

/// How a blocking receive of the mpi backend waits for its message (it polls MPI_Improbe;
/// mpi_detail::Backoff). The torch backend's Gloo receives block in the kernel whatever
/// the choice.
enum class ReceiveWait {
  /// Spin 20 us, then spin yielding the core (sched_yield) up to 1 ms, then sleep 50-500 us
  /// (1/16 of the time waited): lowest latency, for a rank that needs the reply now (a
  /// trainer waiting for SCORE). A rank whose messages arrive less than 1 ms apart never
  /// sleeps, so it keeps its core busy while it waits.
  kSpin,
  /// Spin 20 us, then sleep 50-500 us: for a rank that waits most of its time (a buffer
  /// manager between submissions) and shares cores with the ranks that do the work; a
  /// message that arrives during a sleep waits for its end (~0.1 ms at the start of a wait).
  kSleep,
};

/// A receive wait and its name (YAML buffer.receive_wait; the shape of the configuration's
/// enum tables, runtime/config/enum_names.h, which read this table by argument-dependent
/// lookup).
struct ReceiveWaitName {
  ReceiveWait value;
  const char* name;
};
inline constexpr ReceiveWaitName kReceiveWaitNames[] = {{ReceiveWait::kSpin, "spin"},
                                                        {ReceiveWait::kSleep, "sleep"}};
inline constexpr const auto& enum_names(ReceiveWait) { return kReceiveWaitNames; }

/// Options common to every backend; built once from the YAML `transport:` section.
/// Every group collective is bounded by this many times TransportOptions::timeout, on both
/// backends. Longer than a point-to-point wait on purpose: when a rank stops, the peers
/// blocked in a receive or send name it (they know whom they wait for), while a collective
/// must first find out which member is missing; a member that reached the collective a
/// little earlier than its peer reached its blocked receive must not end the job first.
inline constexpr double kCollectiveTimeoutFactor = 2.0;

struct TransportOptions {
  /// Largest payload (bytes) a receiver accepts; larger messages are refused with
  /// MessageError before any allocation. Default 256 MiB.
  std::size_t max_message_bytes = std::size_t{256} << 20;
  /// Default timeout (seconds) of blocking receives and send-handle waits; every group
  /// collective is bounded by kCollectiveTimeoutFactor times it (> 0; the mpi backend ends
  /// a rank whose collective runs longer, transport/mpi/collective_deadline.h; the torch
  /// backend's Gloo collectives throw TimeoutError naming the members that did not reach
  /// them, transport/gloo/gloo_group.h). 0 leaves mpi collectives unbounded.
  Seconds timeout{300.0};
  /// Bound (seconds, > 0) of joining the world on the torch backend: connecting to rank 0's
  /// TCPStore, waiting there for every rank, and building the point-to-point process group.
  /// Separate from `timeout` because ranks start at different times (a loaded node loads
  /// LibTorch slowly, a scheduler starts hosts apart), and a short `timeout` meant to catch
  /// a stalled peer must not fail the start (torchrun's rendezvous has its own timeout too).
  /// Unused by mpi (mpirun forms the world).
  Seconds rendezvous_timeout{300.0};
  /// How blocking receives wait (mpi backend); a role may change it with
  /// Transport::set_receive_wait (the buffer manager does, YAML buffer.receive_wait).
  ReceiveWait receive_wait = ReceiveWait::kSpin;
  /// The job's token (docs/security.md): the torch backend's rank 0 publishes it on its
  /// TCPStore and every other rank compares its own before it registers anything there, so a
  /// process of another job (or of none: "" differs from a set token) that reaches this
  /// store's port is refused with TransportError instead of joining the world. Not a secret
  /// against an attacker: it guards against accidents. "" = no token. Unused by mpi.
  std::string job_token;
  /// Network interface the torch backend's Gloo pairs bind to ("" = the master address's,
  /// or the host's default); mpi: Open MPI's btl_tcp_if_include when not set already.
  std::string interface;
};

/// Result of a receive: the global rank that sent it and its payload.
struct Received {
  int src = -1;
  Bytes bytes;
};

/// Result of Transport::recv_into: who sent the message and how long it is (the
/// payload itself is in the caller's buffer).
struct RecvInfo {
  int src = -1;          ///< global rank of the sender (resolves kAnySource)
  std::size_t size = 0;  ///< payload size in bytes; equals buffer.size() after the call
};

/// A process group: an ordered set of global ranks with collectives among them
/// (an MPI communicator, or a Gloo process group). Collectives are blocking and
/// must be called by every member in the same order. Not thread-safe: one thread
/// per group at a time.
class Group {
 public:
  virtual ~Group() = default;

  /// This process's rank within the group (0 .. size()-1), or -1 if not a member.
  virtual int rank() const = 0;
  /// Number of members.
  virtual int size() const = 0;
  /// Global ranks of the members, in group-rank order.
  virtual const std::vector<int>& global_ranks() const = 0;
  bool is_member() const { return rank() >= 0; }

  /// Blocks until every member has entered the barrier.
  virtual void barrier() = 0;
  /// Copies `count` elements at `data` from group rank `root` to every member (in place).
  virtual void broadcast(void* data, std::size_t count, DType dtype, int root) = 0;
  /// In-place element-wise reduction of `count` elements over all members; every
  /// member gets the result. kAvg divides by size() (the group size).
  virtual void all_reduce(void* data, std::size_t count, DType dtype, ReduceOp op) = 0;
  /// Every member contributes `count` elements at `in`; `out` (size()*count elements)
  /// receives them in group-rank order on every member.
  virtual void all_gather(const void* in, std::size_t count, DType dtype, void* out) = 0;
};

/// Point-to-point byte messaging plus group creation. send/isend/recv are
/// thread-safe (MPI_THREAD_MULTIPLE); group creation is collective over WORLD.
class Transport {
 public:
  virtual ~Transport() = default;

  /// Backend name: backend_name() of backend.h ("mpi", "torch"), or a test double's.
  virtual std::string backend() const = 0;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual const TransportOptions& options() const = 0;
  /// Sets options().receive_wait for every later receive of this transport. Call it
  /// before other threads use the transport (not synchronized with running receives).
  virtual void set_receive_wait(ReceiveWait wait) = 0;

  /// Blocking send of `size` bytes to global rank `dst` on `tag` (>= 0).
  /// Throws TransportError (bad rank/tag, size above the cap, backend failure).
  virtual void send(const std::uint8_t* data, std::size_t size, int dst, int tag) = 0;
  void send(const Bytes& bytes, int dst, int tag) { send(bytes.data(), bytes.size(), dst, tag); }

  /// Non-blocking send; the handle owns `bytes` until the send completes.
  virtual SendHandle isend(Bytes bytes, int dst, int tag) = 0;

  /// Blocking receive of one message on `tag` from `src` (or kAnySource).
  /// Allocates exactly the incoming size. Throws TimeoutError after `timeout`
  /// (naming the peer and tag), MessageError if the message exceeds the cap (the
  /// message is consumed and dropped; the receiver stays usable).
  virtual Received recv(int src, int tag, Seconds timeout) = 0;
  Received recv(int src, int tag) { return recv(src, tag, options().timeout); }

  /// Blocking receive of one message on `tag` (>= 0) from global rank `src` (or
  /// kAnySource) into the caller's reusable `buffer`, waiting at most `timeout`
  /// (seconds, >= 0). Same matching, ordering and size cap as recv; the difference is
  /// the memory: on success `buffer.size()` is the payload size in bytes and
  /// `buffer[0..size)` holds the payload byte-identical, and when `buffer.capacity()`
  /// is already at least the payload size no allocation happens (buffer.data() is
  /// unchanged), so a loop of receives into one buffer allocates only when a message
  /// is larger than every earlier one. A larger message grows the buffer (the old
  /// contents are not copied). Bytes of `buffer` are overwritten, never zero-filled.
  ///
  /// Blocking: returns when the whole payload is in `buffer`. Thread-safety: as recv
  /// (concurrent receives from several threads are allowed), but `buffer` must not be
  /// touched by any other thread during the call.
  ///
  /// Errors (the message names this rank's peer, "rank N" or "any source", and "tag T"):
  /// - TransportError: invalid `src` or `tag`, negative timeout, backend failure.
  /// - TimeoutError: no message arrived within `timeout`; nothing was consumed, the
  ///   message goes to a later receive on that tag.
  /// - MessageError: the message exceeds TransportOptions::max_message_bytes; it is
  ///   consumed and dropped without allocating its size, the receiver stays usable.
  /// On any error the CONTENTS of `buffer` are unspecified (it may keep its old bytes,
  /// hold a partial payload, or be left empty with its capacity released, e.g. the
  /// torch backend hands the memory of a timed-out in-flight payload receive to the next
  /// receive on that tag), but it is always a valid vector the caller may reuse.
  ///
  /// The default implementation calls recv() and copies the payload into `buffer` when
  /// it fits its capacity (else moves it in): correct for every backend, one extra
  /// allocation per message. The mpi backend overrides it with MPI_Mrecv straight into
  /// `buffer`, the torch backend posts the Gloo payload receive into `buffer`.
  virtual RecvInfo recv_into(int src, int tag, Seconds timeout, Bytes& buffer);
  RecvInfo recv_into(int src, int tag, Bytes& buffer) {
    return recv_into(src, tag, options().timeout, buffer);
  }

  /// The group of all ranks.
  virtual Group& world() = 0;
  /// Creates a group of the given global ranks (any order, non-contiguous allowed;
  /// group rank i is ranks[i]). Collective: every rank of WORLD must call it with
  /// the same list. Non-members get a group whose rank() is -1.
  virtual std::unique_ptr<Group> new_group(const std::vector<int>& ranks) = 0;
};

}  // namespace gfn::transport
