#include "transport/factory.h"

#include <cstdlib>

#include <string>
#include <utility>

#include "transport/errors.h"
#include "transport/gloo/gloo_transport.h"
#include "transport/mpi/mpi_transport.h"

namespace gfn::transport {
namespace {

// A rank or world size and where it came from ("explicit rank 2", "RANK=3", ...).
struct Known {
  std::optional<int> value;
  std::string origin;
};

// The origin of a value for messages: "<origin> <value>" unless the origin already
// carries it ("RANK=3", "launch.rank=3").
std::string named(const std::string& origin, std::optional<int> value) {
  if (!value || origin.find('=') != std::string::npos) return origin;
  return origin + " " + std::to_string(*value);
}

std::pair<Known, Known> world_of(const Rendezvous& r) {
  return {Known{r.rank, named(r.rank_origin, r.rank)},
          Known{r.world_size, named(r.world_size_origin, r.world_size)}};
}

// Refuses a known rank / world size that contradicts the world the backend formed.
void check_world(const Transport& t, const Known& rank, const Known& world) {
  if (world.value && *world.value != t.world_size()) {
    throw TransportError("transport backend '" + t.backend() + "': " + world.origin +
                         " but the launcher started " + std::to_string(t.world_size()) +
                         " processes");
  }
  if (rank.value && *rank.value != t.rank()) {
    throw TransportError("transport backend '" + t.backend() + "': " + rank.origin +
                         " but the launcher gave this process rank " + std::to_string(t.rank()));
  }
}

std::unique_ptr<Transport> make_torch(const TransportOptions& options, const Rendezvous& o) {
  const auto [rank, world] = world_of(o);  // both or neither (make_transport checks)
  if (rank.value && (*world.value < 1 || *rank.value < 0 || *rank.value >= *world.value)) {
    throw TransportError("transport backend 'torch': " + rank.origin + " is outside " +
                         world.origin + " (ranks are 0 .. world size - 1)");
  }
  const auto addr =
      o.master_addr && !o.master_addr->empty() ? o.master_addr : std::optional<std::string>();
  const auto port = o.master_port;
  const std::string& addr_name = o.master_addr_origin;
  const std::string& port_name = o.master_port_origin;
  if (!addr && !port && (o.mpi_launcher || !rank.value || *world.value == 1)) {
    // No TCPStore address: bootstrap over MPI (rank 0 opens the store on a free port);
    // without any launcher this is a world of one (MPI singleton).
    auto t = make_gloo_transport_over_mpi(options);
    if (rank.value) {
      // Every rank finishes building its process groups before any rank that refuses its
      // values tears its own down (which would break a peer's group construction).
      t->world().barrier();
      check_world(*t, rank, world);
    }
    return t;
  }
  if (!addr || !port) {
    throw TransportError(
        std::string("transport backend 'torch': ") +
        (addr   ? std::string("MASTER_PORT (or an explicit master port) is not set")
         : port ? std::string("MASTER_ADDR (or an explicit master address) is not set")
                : "MASTER_ADDR and MASTER_PORT (or explicit values) are not set") +
        " (a TCPStore rendezvous needs both; under mpirun neither is needed)");
  }
  if (*port < 1 || *port > 65535) {
    throw TransportError("transport backend 'torch': " + port_name + " " + std::to_string(*port) +
                         " is outside 1..65535");
  }
  if (!rank.value) {
    throw TransportError("transport backend 'torch': " + addr_name + " " + *addr + " and " +
                         port_name + " " + std::to_string(*port) +
                         " are set but no rank / world size is (set RANK and WORLD_SIZE, "
                         "explicit values, or start the processes with a launcher)");
  }
  return make_gloo_transport(options, GlooRendezvous{*rank.value, *world.value, *addr, *port});
}

}  // namespace

std::unique_ptr<Transport> make_transport(Backend backend, const TransportOptions& options,
                                          const Rendezvous& rendezvous) {
  if (rendezvous.rank.has_value() != rendezvous.world_size.has_value()) {
    const auto [rank, world] = world_of(rendezvous);
    throw TransportError(
        "transport: " +
        (rendezvous.rank ? rank.origin + " is set but " + world.origin
                         : world.origin + " is set but " + rank.origin) +
        " is not: " +
        (rendezvous.rank ? "rank without a world size" : "world size without a rank") +
        " (give both or neither)");
  }
  if (backend == Backend::kTorch) return make_torch(options, rendezvous);
  if (!options.interface.empty()) {
    // Open MPI's TCP transport on that interface (read at MPI initialization; a value the
    // user gave, e.g. mpirun --mca btl_tcp_if_include, wins).
    ::setenv("OMPI_MCA_btl_tcp_if_include", options.interface.c_str(), /*overwrite=*/0);
  }
  auto t = make_mpi_transport(options);
  const auto [rank, world] = world_of(rendezvous);
  check_world(*t, rank, world);
  return t;
}

}  // namespace gfn::transport
