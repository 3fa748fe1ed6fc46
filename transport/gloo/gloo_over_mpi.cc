// The MPI bootstrap of the torch backend: under mpirun there is no
// MASTER_ADDR / MASTER_PORT, so rank 0 opens the TCPStore on a free port and tells
// the others over MPI_COMM_WORLD. Plain MPI calls, for this bootstrap only.
#include <mpi.h>
#include <unistd.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <array>
#include <cstring>

#include "transport/gloo/gloo_transport.h"
#include "transport/gloo/gloo_transport_impl.h"

namespace gfn::transport {

namespace {

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw TransportError(std::string("torch backend MPI bootstrap: ") + call +
                         " failed: " + std::string(text, static_cast<std::size_t>(len)));
  }
}

// Calls MPI_Finalize when destroyed (only created when we initialized MPI).
struct MpiFinalizer {
  ~MpiFinalizer() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};

constexpr int kHostLen = 256;

std::array<char, kHostLen> this_host() {
  std::array<char, kHostLen> h{};
  if (gethostname(h.data(), h.size() - 1) != 0) std::strcpy(h.data(), "localhost");
  h[h.size() - 1] = '\0';
  return h;
}

}  // namespace

std::unique_ptr<Transport> make_gloo_transport_over_mpi(const TransportOptions& options) {
  gloo_detail::check_options(options);
  std::shared_ptr<void> finalizer;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    finalizer = std::make_shared<MpiFinalizer>();
  }
  int rank = 0;
  int size = 1;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");

  // One host (all hostnames equal): meet on loopback; else on rank 0's hostname.
  const auto host = this_host();
  std::vector<char> hosts(static_cast<std::size_t>(size) * kHostLen);
  check_mpi(MPI_Allgather(host.data(), kHostLen, MPI_CHAR, hosts.data(), kHostLen, MPI_CHAR,
                          MPI_COMM_WORLD),
            "MPI_Allgather(hostnames)");
  bool one_host = true;
  for (int r = 1; r < size; ++r) {
    one_host = one_host && std::strncmp(hosts.data(), hosts.data() + r * kHostLen, kHostLen) == 0;
  }
  const std::string master_addr = one_host ? "127.0.0.1" : std::string(hosts.data());

  const auto timeout = gloo_detail::rendezvous_millis(options);
  c10::intrusive_ptr<c10d::TCPStore> store;
  int port = 0;
  std::string error;
  if (rank == 0) {
    try {
      c10d::TCPStoreOptions so;
      so.port = 0;  // a free port
      so.isServer = true;
      so.numWorkers = static_cast<std::size_t>(size);
      so.waitWorkers = false;  // the others learn the port only after this returns
      so.timeout = timeout;
      store = c10::make_intrusive<c10d::TCPStore>(master_addr, so);
      port = store->getPort();
    } catch (const std::exception& e) {
      error = e.what();
      port = -1;  // tell the others to give up too
    }
  }
  check_mpi(MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast(port)");
  if (port <= 0) {
    throw TransportError("torch backend MPI bootstrap: rank 0 could not open a TCPStore on " +
                         master_addr + (error.empty() ? "" : ": " + error));
  }
  if (rank != 0) {
    try {
      c10d::TCPStoreOptions so;
      so.port = static_cast<std::uint16_t>(port);
      so.isServer = false;
      so.numWorkers = static_cast<std::size_t>(size);
      so.timeout = timeout;
      store = c10::make_intrusive<c10d::TCPStore>(master_addr, so);
    } catch (const std::exception& e) {
      throw TransportError("torch backend MPI bootstrap: connecting to the TCPStore at " +
                           master_addr + ":" + std::to_string(port) + " failed (rank " +
                           std::to_string(rank) + "): " + e.what() +
                           gloo_detail::rendezvous_hint(options, e.what()));
    }
  }
  return gloo_detail::make_transport_on_store(options, rank, size, std::move(store), master_addr,
                                              std::move(finalizer));
}

}  // namespace gfn::transport
