#pragma once
// The torch backend of the transport interface (docs/launchers.md "Backends"): LibTorch
// c10d ProcessGroupGloo over a c10d::TCPStore rendezvous.
//
// Wire protocol (point-to-point), as torchgfn's gfn.utils.distributed
// send/recv with backend="torch": every message is two Gloo messages from the
// same sender, a 1-element int64 tensor holding the payload length in bytes on
// Gloo tag 2*tag, then the payload as a uint8 tensor of exactly that length on
// tag 2*tag+1. The payload message is sent even for a 0-byte payload (an empty
// uint8 tensor), so the receiver always posts exactly one payload receive per
// length it learns and the two streams can never drift apart.
// (The torchgfn versions of src/gfn/utils/distributed.py we could read have no
// send/recv with backend="torch", so the 0-byte case could not be checked
// against it; a Python peer must post its payload receive for length 0 as well.)
//
// recv_into (Transport::recv_into): the payload receive of a message learned during
// the call is posted straight into the caller's buffer (its storage is lent to the
// posted receive and returned on success), so a loop of receives into one buffer
// allocates only when a message outgrows it. On a timeout with the payload still in
// flight the storage stays with the posted receive and the buffer is left empty.
//
// Why the length comes first: a Gloo receive into a buffer smaller than the
// incoming message kills the process, so the receiver allocates
// exactly the announced length.
//
// Receives: every length on a tag is received by one any-source listener per tag
// (c10d recvAnysource), which learns the sender; the payload is then received from
// that sender. Messages from other senders than the one a caller asked for are kept
// (in arrival order per sender) for later receives on that tag.
//
// Timeouts: a Gloo wait that times out closes every pair of its process group
// ("Application timeout caused pair closure", verified on LibTorch 1.13), and a
// posted Gloo receive cannot be cancelled. So point-to-point traffic runs on its
// own process group whose Gloo timeout is only a backstop (kP2pBackstopTimeout),
// and the per-call timeouts of recv and SendHandle::wait are enforced above Gloo:
// a timed-out receive stays posted and its message is delivered to the next
// receive on that tag (nothing is lost). Collectives run on a separate process
// group per Group whose Gloo timeout is TransportOptions::timeout; a collective
// that times out throws TransportError and leaves that group unusable.
//
// Oversized messages (length > TransportOptions::max_message_bytes): the receiver
// never allocates the payload. Up to kMaxDrainBytes it drains the payload into a
// bounded sink (a 16 MiB memory file mapped repeatedly over the announced length:
// physical memory stays 16 MiB) and throws MessageError; the sender's send
// completes and the receiver stays usable on that tag. Above kMaxDrainBytes (or a
// negative length) the payload cannot be consumed, so that (peer, tag) pair is
// poisoned: this and every later receive of a message from that peer on that tag
// throws MessageError (other peers and tags are unaffected), and the sender's
// send never completes (its SendHandle::wait times out).
//
// Thread-safety: send / isend / recv may be called from several threads at once.
// The two Gloo messages of one send are posted under one lock, so concurrent sends
// never interleave. Receives on the same tag are served one at a time (a waiting
// receive holds the tag); receives on different tags proceed concurrently. Group
// objects are not thread-safe (one thread per group at a time, as the interface says).
// Sending to oneself is not supported (TransportError).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "transport/transport.h"

namespace gfn::transport {

/// Where and how to meet the other ranks: rank 0 serves a c10d::TCPStore at
/// master_addr:master_port, the others connect to it. Plain values (as in
/// runtime/launch/launch_env.h LaunchEnv, which transport/ must not depend on).
struct GlooRendezvous {
  int rank = 0;                           ///< global rank, 0 .. world_size-1
  int world_size = 1;                     ///< number of processes
  std::string master_addr = "127.0.0.1";  ///< TCPStore host (MASTER_ADDR)
  int master_port = 29500;                ///< TCPStore port (MASTER_PORT), 1..65535
};

/// Gloo timeout of the point-to-point process group: only a backstop, the
/// per-call timeouts are enforced above it (see the file comment). Seconds.
constexpr std::chrono::hours kP2pBackstopTimeout{24 * 7};

/// Largest oversized payload (bytes) a receiver drains into its bounded sink
/// before it poisons the (peer, tag) pair instead (64 GiB).
constexpr std::int64_t kMaxDrainBytes = std::int64_t{64} << 30;

/// Creates the torch transport: connects to (rank 0: serves) the TCPStore, then
/// builds the Gloo process groups of WORLD (one for point-to-point, one for
/// collectives). The Gloo device is bound to 127.0.0.1 when master_addr is
/// "127.0.0.1" or "localhost" (one host), else to this host's default interface.
/// Collective: every rank must call it. Blocks until all ranks have joined, at most
/// options.rendezvous_timeout (the store's timeout until the world has formed, then
/// options.timeout).
/// Throws TransportError on bad rendezvous values (rank outside 0..world_size-1,
/// world_size < 1, port outside 1..65535, empty address), non-positive timeouts or
/// zero max_message_bytes, or when the rendezvous fails (the message names the
/// address and port).
std::unique_ptr<Transport> make_gloo_transport(const TransportOptions& options,
                                               const GlooRendezvous& rendezvous);

/// Creates the torch transport under mpirun (no MASTER_ADDR / MASTER_PORT): calls
/// MPI_Init_thread(MPI_THREAD_MULTIPLE) if MPI is not initialized; rank 0 opens the
/// TCPStore on a free port (port 0) and broadcasts the port and its host over
/// MPI_COMM_WORLD; rank and world size are MPI_COMM_WORLD's. All ranks on one host
/// meet on 127.0.0.1, otherwise on rank 0's hostname. If this call initialized MPI,
/// MPI_Finalize runs after the process groups and the store are destroyed (when
/// the transport and every outstanding SendHandle are gone).
/// Collective over MPI_COMM_WORLD. Throws TransportError as make_gloo_transport.
std::unique_ptr<Transport> make_gloo_transport_over_mpi(const TransportOptions& options);

}  // namespace gfn::transport
