// make_transport with explicit rendezvous values (transport/factory.h Rendezvous)
// under a real launcher: values contradicting the launcher's world
// are refused naming the value; inconsistent values are refused before any communication.

#include <gtest/gtest.h>

#include <string>

#include "tests/transport/conformance/conformance_env.h"
#include "transport/factory.h"

namespace gfn::transport::conformance {
namespace {

template <class B>
class ExplicitValues : public ConformanceTest<B> {};
TYPED_TEST_SUITE(ExplicitValues, Backends, BackendNames);

std::string error_of(const Rendezvous& o) {
  try {
    make_transport(parse_backend(backend_under_test()).value(), transport().options(), o);
  } catch (const TransportError& e) {
    return e.what();
  }
  return "(no error)";
}

// Collective: every rank forms the backend's world, then refuses the explicit value.
// Torchrun-style the torch backend meets at MASTER_ADDR:MASTER_PORT with the explicit
// world size itself (it has no other world to compare with), so it is skipped there.
TYPED_TEST(ExplicitValues, ContradictingTheLauncherIsRefused) {
  if (TypeParam::kName == std::string("torch") && torchrun_style()) {
    GTEST_SKIP() << "torchrun-style: the explicit world size defines the world";
  }
  Rendezvous o = launcher_rendezvous();  // under mpirun: bootstrap over MPI
  o.rank = rank();
  o.world_size = world() + 1;
  const std::string bigger = error_of(o);
  EXPECT_NE(bigger.find("explicit world size " + std::to_string(world() + 1)), std::string::npos)
      << bigger;
  EXPECT_NE(bigger.find("started " + std::to_string(world())), std::string::npos) << bigger;
  if (world() >= 2) {
    o.rank = next_rank();
    o.world_size = world();
    const std::string other_rank = error_of(o);
    EXPECT_NE(other_rank.find("explicit rank " + std::to_string(next_rank())), std::string::npos)
        << other_rank;
  }
  // The launcher's own values are accepted.
  o.rank = rank();
  o.world_size = world();
  auto same = make_transport(parse_backend(TypeParam::kName).value(), transport().options(), o);
  EXPECT_EQ(same->rank(), rank());
  EXPECT_EQ(same->world_size(), world());
  same->world().barrier();
}

// Refused on every rank before any communication (nothing to wait for).
TYPED_TEST(ExplicitValues, InconsistentValuesAreRefusedBeforeAnyCommunication) {
  Rendezvous only_rank;
  only_rank.rank = 0;
  EXPECT_NE(error_of(only_rank).find("world size"), std::string::npos) << error_of(only_rank);
  Rendezvous only_size;
  only_size.world_size = world();
  EXPECT_NE(error_of(only_size).find("rank"), std::string::npos) << error_of(only_size);
  if (TypeParam::kName != std::string("torch")) return;  // mpi ignores address / port
  Rendezvous outside;
  outside.rank = world();
  outside.world_size = world();
  EXPECT_NE(error_of(outside).find("outside"), std::string::npos) << error_of(outside);
  Rendezvous bad_port;
  bad_port.master_addr = "127.0.0.1";
  bad_port.master_port = 70000;
  EXPECT_NE(error_of(bad_port).find("explicit master port 70000"), std::string::npos)
      << error_of(bad_port);
}

}  // namespace
}  // namespace gfn::transport::conformance
