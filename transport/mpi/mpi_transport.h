#pragma once
// The MPI backend of the transport interface (docs/launchers.md "Backends"), written on
// Open MPI directly (LibTorch's ProcessGroupMPI is not in Debian's LibTorch).
//
// - Initialization: calls MPI_Init_thread(MPI_THREAD_MULTIPLE) if MPI is not
//   initialized yet, and MPI_Finalize when the last object using MPI (transport,
//   its groups, outstanding SendHandles) is destroyed, only if it initialized MPI.
//   Without a launcher this is a world of one (Open MPI singleton init).
// - Point-to-point traffic runs on a private duplicate of MPI_COMM_WORLD, so user
//   MPI code cannot match our messages. One MPI message per payload on `tag`;
//   recv uses MPI_Improbe + MPI_Get_count + MPI_Mrecv (thread-safe, unlike
//   Probe+Recv) and polls (brief spin, then short sleeps) so a waiting rank does
//   not burn a core. recv_into does the same MPI_Mrecv straight into the caller's
//   buffer (no allocation when its capacity suffices, so no fresh pages to fault in:
//   glibc serves blocks above 32 MiB with new mmapped pages on every allocation).
//   Payloads of 4 MiB and more that need new memory are advised to transparent huge
//   pages (madvise) before they are touched.
// - Groups are MPI communicators (MPI_Group_incl + MPI_Comm_create, collective
//   over WORLD). Non-members get a group whose rank() is -1.
// - Payloads are limited to min(max_message_bytes, 2^31-1) bytes (MPI int counts).
//
// Mirrors torchgfn gfn.utils.distributed (send / isend / recv / AsyncSendHandle,
// initialize_distributed_compute_mpi4py).

#include <memory>

#include "transport/transport.h"

namespace gfn::transport {

/// Creates the MPI transport. Collective over MPI_COMM_WORLD (MPI_Comm_dup): every
/// rank must call it, in the same order as any other communicator creation.
/// Throws TransportError if MPI cannot be initialized, if MPI was initialized
/// earlier with less than MPI_THREAD_SERIALIZED, or if `options` are invalid
/// (max_message_bytes above 2^31-1, negative timeout). Several transports may
/// coexist; each has its own communicator (messages never cross between them).
std::unique_ptr<Transport> make_mpi_transport(const TransportOptions& options);

}  // namespace gfn::transport
