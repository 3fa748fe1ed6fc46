// gtest main for the multi-rank protocol tests of roles/: creates the transport of
// the backend named by --backend=mpi|torch (default mpi; torch bootstraps its
// TCPStore over MPI under mpirun), runs every test on every rank, and returns
// non-zero on every rank if any rank failed (so mpirun's exit code reports it).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "tests/roles/buffer_manager/protocol_test_env.h"
#include "transport/factory.h"

namespace gfn::roles::testing {
namespace {
transport::Transport* g_transport = nullptr;
}  // namespace
transport::Transport& world_transport() { return *g_transport; }
}  // namespace gfn::roles::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::string backend = "mpi";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--backend=", 10) == 0) backend = argv[i] + 10;
  }
  gfn::transport::TransportOptions options;
  options.max_message_bytes = std::size_t{8} << 20;
  options.timeout = gfn::transport::Seconds(60);
  auto transport =
      gfn::transport::make_transport(gfn::transport::parse_backend(backend).value(), options);
  gfn::roles::testing::g_transport = transport.get();
  const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = local_failed;
  transport->world().all_reduce(&any_failed, 1, gfn::transport::DType::kInt32,
                                gfn::transport::ReduceOp::kMax);
  if (any_failed) {
    std::fprintf(stderr, "[rank %d] FAILED: %s\n", transport->rank(),
                 local_failed ? "this rank had failures" : "another rank had failures");
  }
  gfn::roles::testing::g_transport = nullptr;
  transport.reset();
  return any_failed;
}
