// gtest main of the transport conformance suite. Usage:
//   mpirun -np N transport_conformance_tests --backend=mpi     (also: singleton, N = 1)
//   mpirun -np N transport_conformance_tests --backend=torch   (Gloo, bootstrapped over MPI)
//   gfn-launch -n N -- transport_conformance_tests --backend=torch   (torchrun-style)
// Creates the transport of the chosen backend once (make_transport), restricts the tests
// to that backend's (gtest filter "*Mpi*" / "*Torch*" unless --gtest_filter is given),
// runs every test on every rank and returns non-zero on every rank if any rank had a
// failure, so the launcher's exit code reports it.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "tests/transport/conformance/conformance_env.h"
#include "transport/factory.h"

namespace gfn::transport::conformance {
namespace {
std::string g_backend = "mpi";
Transport* g_transport = nullptr;

// A free TCP port on the loopback interface (bind to port 0), or 0 on failure.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(sa);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0) {
    port = ntohs(sa.sin_port);
  }
  ::close(fd);
  return port;
}
}  // namespace

const std::string& backend_under_test() { return g_backend; }
Transport& transport() { return *g_transport; }

bool torchrun_style() {
  const char* addr = std::getenv("MASTER_ADDR");
  return addr != nullptr && *addr != '\0' && std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr;
}

Rendezvous launcher_rendezvous() {
  Rendezvous r;
  r.mpi_launcher = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
  if (!torchrun_style()) return r;
  const char* rank = std::getenv("RANK");
  const char* size = std::getenv("WORLD_SIZE");
  const char* port = std::getenv("MASTER_PORT");
  if (rank == nullptr || size == nullptr || port == nullptr) return r;
  r.rank = std::atoi(rank);
  r.world_size = std::atoi(size);
  r.rank_origin = std::string("RANK=") + rank;
  r.world_size_origin = std::string("WORLD_SIZE=") + size;
  r.master_addr = std::getenv("MASTER_ADDR");
  r.master_port = std::atoi(port);
  r.master_addr_origin = "MASTER_ADDR";
  r.master_port_origin = "MASTER_PORT";
  return r;
}

std::unique_ptr<Transport> make_second_transport(const TransportOptions& options) {
  if (g_backend != "torch" || !torchrun_style()) {
    return make_transport(parse_backend(g_backend).value(), options, launcher_rendezvous());
  }
  std::int32_t port = transport().rank() == 0 ? free_port() : 0;
  transport().world().broadcast(&port, 1, DType::kInt32, 0);
  Rendezvous second = launcher_rendezvous();
  second.master_port = port;
  second.master_port_origin = "explicit master port";
  return make_transport(Backend::kTorch, options, second);
}

Bytes pattern(int src, std::size_t size, int salt) {
  Bytes b(size);
  std::uint32_t x = 2654435761u * static_cast<std::uint32_t>(src + 1) +
                    40503u * static_cast<std::uint32_t>(size) + static_cast<std::uint32_t>(salt);
  for (auto& v : b) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v = static_cast<std::uint8_t>(x >> 11);
  }
  return b;
}

}  // namespace gfn::transport::conformance

int main(int argc, char** argv) {
  namespace c = gfn::transport::conformance;
  ::testing::InitGoogleTest(&argc, argv);
  std::string test_name = "Mpi";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--backend" && i + 1 < argc) {
      arg = std::string("--backend=") + argv[++i];
    }
    if (arg.rfind("--backend=", 0) == 0) {
      c::g_backend = arg.substr(std::strlen("--backend="));
    } else {
      std::fprintf(stderr, "unknown argument '%s' (expected --backend=mpi|torch)\n", argv[i]);
      return 2;
    }
  }
  if (c::g_backend == c::MpiBackend::kName) {
    test_name = c::MpiBackend::kTestName;
  } else if (c::g_backend == c::TorchBackend::kName) {
    test_name = c::TorchBackend::kTestName;
  } else {
    std::fprintf(stderr, "--backend=%s: unknown backend (expected mpi or torch)\n",
                 c::g_backend.c_str());
    return 2;
  }
  if (::testing::GTEST_FLAG(filter) == "*") GTEST_FLAG_SET(filter, "*" + test_name + "*");

  gfn::transport::TransportOptions options;
  options.max_message_bytes = c::kMaxPayload;
  options.timeout = gfn::transport::Seconds(c::kTestTimeoutS);
  std::unique_ptr<gfn::transport::Transport> transport;
  try {
    transport = gfn::transport::make_transport(gfn::transport::parse_backend(c::g_backend).value(),
                                               options, c::launcher_rendezvous());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "creating the %s transport failed: %s\n", c::g_backend.c_str(), e.what());
    return 1;
  }
  c::g_transport = transport.get();

  const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = local_failed;
  transport->world().all_reduce(&any_failed, 1, gfn::transport::DType::kInt32,
                                gfn::transport::ReduceOp::kMax);
  if (any_failed) {
    std::fprintf(stderr, "[%s rank %d] FAILED: %s\n", c::g_backend.c_str(), transport->rank(),
                 local_failed ? "this rank had failures" : "another rank had failures");
  }
  c::g_transport = nullptr;
  transport.reset();  // process groups, store, then MPI_Finalize if the transport started MPI
  return any_failed;
}
