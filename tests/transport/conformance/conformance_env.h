#pragma once
// Shared state of the transport conformance suite (tests/transport/conformance/):
// one typed GoogleTest suite run against every transport backend.
//
// Each backend type names one backend of transport/factory.h make_transport. The
// binary tests ONE backend per process, chosen with --backend=mpi|torch (see
// conformance_main.cc): its main creates that backend's transport once, and sets the
// gtest filter to the tests whose name contains the backend's test name ("Mpi" or
// "Torch"): typed suites are named `<Suite>/Mpi` and `<Suite>/Torch`, tests that are
// truly specific to one backend live in suites named `MpiSpecific` / `TorchSpecific`.
//
// Every test runs on every rank; TearDown keeps the ranks in step with a WORLD
// barrier. A failure on any rank fails the launcher's exit code (conformance_main.cc).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "transport/factory.h"
#include "transport/transport.h"

namespace gfn::transport::conformance {

/// The MPI backend (transport/mpi): make_transport(Backend::kMpi, ...).
struct MpiBackend {
  static constexpr const char* kName = "mpi";      ///< transport.backend value
  static constexpr const char* kTestName = "Mpi";  ///< typed-suite suffix, gtest filter
};

/// The torch backend (transport/gloo, LibTorch c10d Gloo): make_transport(Backend::kTorch, ...).
struct TorchBackend {
  static constexpr const char* kName = "torch";
  static constexpr const char* kTestName = "Torch";
};

using Backends = ::testing::Types<MpiBackend, TorchBackend>;

/// Names the typed suites `<Suite>/Mpi` and `<Suite>/Torch`.
struct BackendNames {
  template <class B>
  static std::string GetName(int) {
    return B::kTestName;
  }
};

/// Largest payload of the suite (64 MiB); the transport under test accepts exactly this.
constexpr std::size_t kMaxPayload = std::size_t{64} << 20;
/// Timeout (seconds) of every blocking call in the tests: a hang fails, it does not stall.
constexpr double kTestTimeoutS = 60.0;
const Seconds kTimeout{kTestTimeoutS};

/// The backend under test in this process ("mpi" or "torch").
const std::string& backend_under_test();
/// The transport under test, created once by the main (max_message_bytes = kMaxPayload,
/// timeout = kTestTimeoutS).
Transport& transport();
inline int rank() { return transport().rank(); }
inline int world() { return transport().world_size(); }
inline int next_rank() { return (rank() + 1) % world(); }
inline int prev_rank() { return (rank() + world() - 1) % world(); }

/// A second, independent transport of the backend under test with `options`.
/// Collective: every rank calls it. mpi: a new communicator. torch under mpirun: a new
/// MPI bootstrap; torch torchrun-style: rank 0 picks a free port, broadcasts it over
/// transport(), and every rank passes it in its Rendezvous (the environment's MASTER_PORT
/// is the first transport's store).
std::unique_ptr<Transport> make_second_transport(const TransportOptions& options);

/// The rendezvous of this test process, read from the launcher's variables here (the
/// product reads them in runtime/launch; transport/ reads none): torchrun-style, RANK,
/// WORLD_SIZE, MASTER_ADDR and MASTER_PORT; under mpirun only "an MPI launcher started
/// this process" (the backends take the world from MPI).
Rendezvous launcher_rendezvous();

/// True when the ranks were started torchrun-style (MASTER_ADDR set, no MPI launcher).
bool torchrun_style();

/// A deterministic byte pattern depending on the sender, size and salt, so a mix-up
/// between messages shows.
Bytes pattern(int src, std::size_t size, int salt);

/// Fixture of every typed conformance test. Skips (on every rank alike) a test of a
/// backend other than the one under test; the main's filter normally excludes them.
template <class B>
class ConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (backend_under_test() != B::kName) {
      GTEST_SKIP() << "backend under test is " << backend_under_test();
    }
  }
  void TearDown() override {
    if (backend_under_test() == B::kName) transport().world().barrier();
  }
};

}  // namespace gfn::transport::conformance

/// Skips the test (on every rank alike) unless the world has at least n ranks.
#define REQUIRE_RANKS(n)                                    \
  do {                                                      \
    if (::gfn::transport::conformance::world() < (n))       \
      GTEST_SKIP() << "needs at least " << (n) << " ranks"; \
  } while (0)
