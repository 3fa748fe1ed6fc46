#pragma once
// An in-process transport::Transport for unit tests: the ranks of a LoopbackWorld are
// objects in one process (drive them from one thread, or one thread per rank), so a
// role such as the replay-buffer manager (roles/buffer_manager/manager.h) can be
// tested without mpirun.
//
// Semantics, as the interface (transport/transport.h) and the mpi backend:
//  - one mailbox per (destination rank, tag); a receive from rank S takes the oldest
//    message from S, a receive from kAnySource the oldest message of any sender, so
//    messages are FIFO per (source, destination, tag) and tags never mix;
//  - send and isend deliver at once (buffered, like an eager MPI send): isend returns
//    a SendHandle that is already complete;
//  - a blocking receive waits at most its timeout, then throws transport::TimeoutError
//    naming the rank, the peer and the tag (nothing is consumed);
//  - sends above TransportOptions::max_message_bytes, to an invalid rank or on a
//    negative tag throw transport::TransportError; recv_into is the interface's default
//    (recv, then a copy into the caller's buffer when it fits its capacity);
//  - world() is a group of every rank whose collectives throw TransportError ("not
//    supported"), and new_group throws: this transport is point-to-point only.
// Faults on demand (each one-shot, consumed by the next send that matches it, in the
// order they were armed): a send that throws, an isend whose handle fails, a message
// dropped, a message edited (corrupted) before delivery.
//
// Thread-safety: every method of LoopbackWorld and of its transports may be called
// from any thread (one mutex per world). Rank transports live as long as the world.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "transport/transport.h"

namespace gfn::testing {

class LoopbackWorld {
 public:
  /// Any tag, for the fault functions.
  static constexpr int kAnyTag = -1;

  /// A world of `world_size` (>= 1) ranks; throws std::invalid_argument otherwise.
  explicit LoopbackWorld(int world_size, transport::TransportOptions options = {});
  ~LoopbackWorld();
  LoopbackWorld(const LoopbackWorld&) = delete;
  LoopbackWorld& operator=(const LoopbackWorld&) = delete;

  int size() const;
  /// The transport of global rank `rank`; throws std::out_of_range for a bad rank.
  transport::Transport& rank(int rank);

  /// The next send or isend to `dst` (on `tag`, or any tag) throws TransportError
  /// whose message contains `why`; nothing is delivered.
  void fail_next_send(int dst, int tag = kAnyTag, std::string why = "injected send failure");
  /// The next isend to `dst` returns a handle whose is_complete() and wait() throw
  /// TransportError containing `why` (a send that fails after it was posted); nothing is
  /// delivered. A blocking send it matches throws at once.
  void fail_next_completion(int dst, int tag = kAnyTag,
                            std::string why = "injected send completion failure");
  /// The next message to `dst` (on `tag`, or any tag) is silently lost: the send
  /// succeeds, no receive ever sees it.
  void drop_next(int dst, int tag = kAnyTag);
  /// The next message to `dst` (on `tag`, or any tag) is passed through `edit` before
  /// it is delivered (e.g. flip a byte, truncate it).
  void corrupt_next(int dst, int tag, std::function<void(transport::Bytes&)> edit);

  /// Messages waiting in the mailbox of (`dst`, `tag`), not yet received.
  std::size_t queued(int dst, int tag) const;
  /// Faults armed and not yet consumed.
  std::size_t faults_armed() const;

  struct State;  // the shared mailboxes (loopback_transport.cc)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace gfn::testing
