#pragma once
// Creates the transport backend chosen by the experiment's `transport.backend` (backend.h), from a
// rendezvous the caller resolved (runtime/launch/rendezvous.h builds it from the
// launcher's variables and the YAML `launch:` section). transport/ reads no environment
// variable.

#include <memory>
#include <optional>
#include <string>

#include "transport/backend.h"
#include "transport/transport.h"

namespace gfn::transport {

/// Where this process meets the others. Every field is optional; an origin names its
/// value in error messages ("RANK=3", "launch.world_size=2", "MASTER_PORT"). A plain
/// value type: copyable, no shared state.
struct Rendezvous {
  std::optional<int> rank;                 ///< global rank, 0 .. world_size-1
  std::optional<int> world_size;           ///< number of processes (>= 1)
  std::optional<std::string> master_addr;  ///< TCPStore host of the torch backend
  std::optional<int> master_port;          ///< TCPStore port of the torch backend (1..65535)
  std::string rank_origin = "explicit rank";
  std::string world_size_origin = "explicit world size";
  std::string master_addr_origin = "explicit master address";
  std::string master_port_origin = "explicit master port";
  /// An MPI launcher (mpirun, srun with PMI) started this process: without a master
  /// address and port the torch backend bootstraps its world over MPI.
  bool mpi_launcher = false;
};

/// Creates the transport of `backend`. Collective: every rank must call it. Blocks until
/// every rank has joined (at most options.timeout for the torch rendezvous). Thread-safe
/// only in the sense that it touches no shared state of its own (MPI initialization is
/// process-wide: call it from one thread). `Rendezvous{}` (nothing known): the world of
/// MPI (under an MPI launcher) or a world of one.
/// - Backend::kMpi: Open MPI (transport/mpi). The world comes from MPI; a known rank / world size
///   is checked against it.
/// - Backend::kTorch: LibTorch c10d Gloo (transport/gloo). With a master address and port, rank 0
///   serves a TCPStore there and every rank joins with its rank and world size. With
///   neither, the world is bootstrapped over MPI (under an MPI launcher, or a world of one
///   without any launcher); a rank / world size known then must match MPI's.
/// Throws TransportError (before any communication unless noted) for only one of rank /
/// world size, rank outside
/// the world, only one of master address / port, a port outside 1..65535, several
/// processes meant (world size > 1, no MPI launcher) without a master address and port,
/// a TCPStore rendezvous without a rank; after the world has formed, for a rank / world
/// size contradicting it; and when the rendezvous itself fails. Messages name the
/// values by their origins.
std::unique_ptr<Transport> make_transport(Backend backend, const TransportOptions& options,
                                          const Rendezvous& rendezvous = Rendezvous{});

}  // namespace gfn::transport
