// transport/factory.h: make_transport from a Rendezvous value (built here directly; the
// launcher's variables are read by runtime/launch, tests/runtime/launch). No launcher:
// every case runs in a process of its own (gtest_discover_tests; some initialize MPI as a
// singleton); the torch cases that succeed form a world of one at a TCPStore on a free
// loopback port.

#include "transport/factory.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace gfn::transport {
namespace {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(sa);
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0) {
    port = ntohs(sa.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

class MakeTransport : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.timeout = Seconds(15);  // a wrong rendezvous fails instead of stalling
  }
  // A rank / world size as a launcher's variables give them (runtime/launch origins).
  static Rendezvous from_launcher(std::optional<int> rank, const std::string& rank_origin,
                                  std::optional<int> size, const std::string& size_origin) {
    Rendezvous r;
    r.rank = rank;
    r.world_size = size;
    r.rank_origin = rank_origin;
    r.world_size_origin = size_origin;
    return r;
  }
  std::string error_of(const std::string& backend, const Rendezvous& o) {
    try {
      make_transport(*parse_backend(backend), options_, o);
    } catch (const TransportError& e) {
      return e.what();
    }
    return "(no error)";
  }
  TransportOptions options_;
};

TEST_F(MakeTransport, ExplicitRankAndWorldSizeComeTogether) {
  Rendezvous o;
  o.rank = 1;
  for (const char* backend : {"mpi", "torch"}) {
    const std::string e = error_of(backend, o);
    EXPECT_NE(e.find("rank without a world size"), std::string::npos) << e;
  }
  o.rank.reset();
  o.world_size = 2;
  EXPECT_NE(error_of("torch", o).find("world size without a rank"), std::string::npos);
}

TEST_F(MakeTransport, LauncherRankWithoutWorldSizeIsRefusedNamingTheOrigins) {
  const std::string e = error_of("torch", from_launcher(1, "RANK=1", std::nullopt, "WORLD_SIZE"));
  EXPECT_NE(e.find("RANK=1 is set but WORLD_SIZE is not"), std::string::npos) << e;
  const std::string slurm =
      error_of("mpi", from_launcher(std::nullopt, "SLURM_PROCID", 4, "SLURM_NTASKS=4"));
  EXPECT_NE(slurm.find("SLURM_NTASKS=4 is set but SLURM_PROCID is not"), std::string::npos)
      << slurm;
}

TEST_F(MakeTransport, RankOutsideTheWorldIsRefused) {
  Rendezvous o;
  o.rank = 2;
  o.world_size = 2;
  o.master_addr = "127.0.0.1";
  o.master_port = 29999;
  EXPECT_NE(error_of("torch", o).find("explicit rank 2 is outside explicit world size 2"),
            std::string::npos)
      << error_of("torch", o);
  Rendezvous launcher = from_launcher(3, "RANK=3", 2, "WORLD_SIZE=2");
  EXPECT_NE(error_of("torch", launcher).find("RANK=3 is outside WORLD_SIZE=2"), std::string::npos)
      << error_of("torch", launcher);
}

TEST_F(MakeTransport, AddressAndPortComeTogether) {
  Rendezvous two = from_launcher(0, "RANK=0", 2, "WORLD_SIZE=2");
  const std::string none = error_of("torch", two);
  EXPECT_NE(none.find("MASTER_ADDR and MASTER_PORT"), std::string::npos) << none;
  Rendezvous addr_only = two;
  addr_only.master_addr = "127.0.0.1";
  EXPECT_NE(error_of("torch", addr_only).find("MASTER_PORT (or an explicit master port)"),
            std::string::npos)
      << error_of("torch", addr_only);
  Rendezvous bad_port = addr_only;
  bad_port.master_port = 0;
  EXPECT_NE(error_of("torch", bad_port).find("explicit master port 0 is outside 1..65535"),
            std::string::npos)
      << error_of("torch", bad_port);
  bad_port.master_port = 70000;
  bad_port.master_port_origin = "MASTER_PORT";
  EXPECT_NE(error_of("torch", bad_port).find("MASTER_PORT 70000 is outside"), std::string::npos)
      << error_of("torch", bad_port);
}

// An address and port without any rank / world size cannot form a TCPStore world.
TEST_F(MakeTransport, AddressWithoutARankIsRefused) {
  Rendezvous o;
  o.master_addr = "127.0.0.1";
  o.master_port = 29500;
  o.master_addr_origin = "MASTER_ADDR";
  o.master_port_origin = "MASTER_PORT";
  const std::string e = error_of("torch", o);
  EXPECT_NE(e.find("MASTER_ADDR 127.0.0.1 and MASTER_PORT 29500 are set but no rank"),
            std::string::npos)
      << e;
}

// The torch backend meets at the given TCPStore with the given rank and world size: a
// world of one on loopback forms at once.
TEST_F(MakeTransport, TcpStoreWorldOfOne) {
  Rendezvous o;
  o.rank = 0;
  o.world_size = 1;
  o.master_addr = "127.0.0.1";
  o.master_port = free_port();
  auto t = make_transport(Backend::kTorch, options_, o);
  EXPECT_EQ(t->backend(), "torch");
  EXPECT_EQ(t->rank(), 0);
  EXPECT_EQ(t->world_size(), 1);
  t->world().barrier();
}

// Under an MPI launcher an address and port make the torch backend meet at that TCPStore
// instead of bootstrapping over MPI, with the launcher's rank and world size.
TEST_F(MakeTransport, AddressUnderAnMpiLauncherUsesTheLaunchersRank) {
  Rendezvous o = from_launcher(0, "OMPI_COMM_WORLD_RANK=0", 1, "OMPI_COMM_WORLD_SIZE=1");
  o.mpi_launcher = true;
  o.master_addr = "127.0.0.1";
  o.master_port = free_port();
  auto t = make_transport(Backend::kTorch, options_, o);
  EXPECT_EQ(t->rank(), 0);
  EXPECT_EQ(t->world_size(), 1);
}

// MPI forms its own world (a singleton here); explicit values must agree with it.
TEST_F(MakeTransport, MpiRefusesAnExplicitWorldSizeContradictingMpi) {
  Rendezvous o;
  o.rank = 0;
  o.world_size = 1;
  // Kept alive: the last MPI transport to go finalizes MPI, which cannot restart.
  auto t = make_transport(Backend::kMpi, options_, o);
  EXPECT_EQ(t->world_size(), 1);
  o.world_size = 3;
  const std::string e = error_of("mpi", o);
  EXPECT_NE(e.find("explicit world size 3 but the launcher started 1"), std::string::npos) << e;
  o.world_size = 1;
  o.rank = 1;
  EXPECT_NE(error_of("mpi", o).find("explicit rank 1"), std::string::npos) << error_of("mpi", o);
}

// The one table of backend names (backend.h): name -> backend -> name for every backend,
// unknown names refused, "gloo" only where the seed APIs accept it.
TEST(BackendNames, RoundTripEveryBackend) {
  int seen = 0;
  for (const auto& entry : kBackendNames) {
    const auto parsed = parse_backend(entry.name);
    ASSERT_TRUE(parsed.has_value()) << entry.name;
    EXPECT_EQ(*parsed, entry.value);
    EXPECT_STREQ(backend_name(*parsed), entry.name);
    ++seen;
  }
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(backend_choices(), "mpi, torch");
  EXPECT_EQ(parse_backend("nccl"), std::nullopt);
  EXPECT_EQ(parse_backend("gloo"), std::nullopt);
  EXPECT_EQ(parse_backend_or_gloo("gloo"), Backend::kTorch);
  EXPECT_EQ(parse_backend_or_gloo("mpi"), Backend::kMpi);
  EXPECT_EQ(parse_backend_or_gloo("nccl"), std::nullopt);
}

}  // namespace
}  // namespace gfn::transport
