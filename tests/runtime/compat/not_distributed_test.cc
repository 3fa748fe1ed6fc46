// Single-process tests of runtime/distributed without mpirun: the "not distributed"
// defaults, the errors of collectives called before init_dist, the init_dist argument
// errors, the local behaviour of the value collectives and rank guards, user timing
// tables, and an init / shutdown / re-init cycle of a torch world of one (TCPStore).

#include <ATen/ATen.h>
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include "runtime/compat/process_group.h"
#include "runtime/compat/rank_guards.h"
#include "runtime/compat/rank_print.h"
#include "runtime/compat/tensor_collectives.h"
#include "runtime/compat/tensor_gathers.h"
#include "runtime/compat/timing_tables.h"
#include "runtime/compat/value_collectives.h"
#include "runtime/log/logging.h"
#include "runtime/timing/reports.h"

namespace gfn::compat {
namespace {

// Expects NotInitializedError whose message names `name` and init_dist.
void expect_not_initialized(const std::string& name, const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << name << " did not throw";
  } catch (const NotInitializedError& e) {
    EXPECT_EQ(std::string(e.what()), name + ": called before gfn::compat::init_dist");
  }
}

void expect_invalid(const std::string& fragment, const InitOptions& o) {
  try {
    init_dist(o);
    ADD_FAILURE() << "init_dist did not throw for: " << fragment;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  EXPECT_FALSE(is_dist_active());
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(NotDistributed, DefaultsAndNoOpBarriers) {
  EXPECT_FALSE(is_dist_active());
  EXPECT_FALSE(is_distributed());
  const DistributedInfo info = get_dist_info();
  EXPECT_EQ(info.local_rank, 0);
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(info.local_world_size, 1);
  EXPECT_EQ(info.world_size, 1);
  EXPECT_EQ(get_local_rank(), 0);
  EXPECT_EQ(get_global_rank(), 0);
  EXPECT_EQ(get_local_world_size(), 1);
  EXPECT_EQ(get_world_size(), 1);
  EXPECT_TRUE(is_main_process());
  EXPECT_NO_THROW(safe_barrier());
  EXPECT_NO_THROW(barrier());
  shutdown_dist();  // no-op when not initialized
  EXPECT_FALSE(is_using_torchrun());
  const char* vars[] = {"RANK",
                        "LOCAL_RANK",
                        "WORLD_SIZE",
                        "LOCAL_WORLD_SIZE",
                        "GROUP_RANK",
                        "ROLE_RANK",
                        "ROLE_WORLD_SIZE",
                        "MASTER_ADDR",
                        "MASTER_PORT",
                        "TORCHELASTIC_RESTART_COUNT",
                        "TORCHELASTIC_MAX_RESTARTS",
                        "TORCHELASTIC_RUN_ID"};
  for (const char* v : vars) ::setenv(v, "0", 1);
  EXPECT_TRUE(is_using_torchrun());
  ::unsetenv("TORCHELASTIC_RUN_ID");
  EXPECT_FALSE(is_using_torchrun());
  for (const char* v : vars) ::unsetenv(v);
}

TEST(NotDistributed, CollectivesThrowNotInitialized) {
  at::Tensor t = at::zeros({2, 2});
  std::vector<at::Tensor> out{at::zeros({2, 2})};
  expect_not_initialized("default_transport", [] { default_transport(); });
  expect_not_initialized("world_group", [] { world_group(); });
  expect_not_initialized("broadcast", [&] { broadcast(t, 0); });
  expect_not_initialized("all_reduce", [&] { all_reduce(t); });
  expect_not_initialized("all_gather", [&] { all_gather(out, t); });
  expect_not_initialized("all_gather", [&] { all_gather(t); });
  expect_not_initialized("gather_into_tensor", [&] { gather_into_tensor(t, {2, 2}); });
  expect_not_initialized("gather_into_tensor", [&] { gather_into_tensor(t); });
  expect_not_initialized("all_reduce_tensors", [&] { all_reduce_tensors(t); });
  expect_not_initialized("all_reduce_tensors", [&] { all_reduce_tensors({t, t}); });
  expect_not_initialized("gather_distributed_data", [&] { gather_distributed_data(t); });
}

TEST(NotDistributed, InitArgumentErrors) {
  InitOptions rank_only;
  rank_only.rank = 0;
  expect_invalid("rank given without world_size", rank_only);
  InitOptions world_only;
  world_only.world_size = 2;
  expect_invalid("world_size given without rank", world_only);
  InitOptions unknown;
  unknown.backend = "nccl";
  expect_invalid("unknown backend 'nccl' (available: mpi, torch)", unknown);
  // A TCPStore rendezvous of 2 processes without MASTER_PORT: the transport refuses it.
  InitOptions no_port;
  no_port.backend = "torch";
  no_port.rank = 0;
  no_port.world_size = 2;
  no_port.master_addr = "127.0.0.1";
  EXPECT_THROW(init_dist(no_port), transport::TransportError);
  EXPECT_FALSE(is_dist_active());
}

TEST(NotDistributed, TorchWorldOfOneInitShutdownReinit) {
  for (int round = 0; round < 2; ++round) {
    InitOptions o;
    o.backend = "torch";
    o.rank = 0;
    o.world_size = 1;
    o.master_addr = "127.0.0.1";
    o.master_port = free_port();
    o.transport.timeout = transport::Seconds(20.0);
    init_dist(o);
    ASSERT_TRUE(is_dist_active());
    EXPECT_EQ(default_transport().backend(), "torch");
    EXPECT_EQ(get_world_size(), 1);
    EXPECT_THROW(init_dist(o), DistInitError);
    at::Tensor t = at::full({3}, 2.0);
    all_reduce(t);
    EXPECT_TRUE(at::equal(t, at::full({3}, 2.0)));
    const at::Tensor rows = gather_distributed_data(at::ones({4, 2}));
    EXPECT_EQ(rows.sizes(), (std::vector<std::int64_t>{4, 2}));
    safe_barrier();
    shutdown_dist();
    EXPECT_FALSE(is_dist_active());
    EXPECT_EQ(get_dist_info().world_size, 1);
  }
}

TEST(NotDistributed, ValueCollectivesAndGuardsRunLocally) {
  EXPECT_EQ(compute_and_broadcast([] { return std::string("local"); }), "local");
  EXPECT_THROW(compute_and_broadcast([] { return 1; }, 1), transport::TransportError);
  const auto gathered = gather_from_all_ranks([] { return std::vector<int>{1, 2}; });
  ASSERT_TRUE(gathered.has_value());
  EXPECT_EQ(*gathered, (std::vector<std::vector<int>>{{1, 2}}));
  EXPECT_EQ(*gather_scalar_from_all_ranks(2.5), std::vector<double>{2.5});
  EXPECT_EQ(reduce_and_broadcast([] { return 3; },
                                 [](const std::vector<int>& v) { return v.size() * 10 + v[0]; }),
            13u);
  int calls = 0;
  EXPECT_TRUE(zero_only([&] { ++calls; }));
  EXPECT_EQ(zero_first([&] { return ++calls; }), 2);
  {
    ZeroFirst guard;
    ++calls;
  }
  EXPECT_EQ(calls, 3);

  std::ostringstream out;
  log::setup_logging(0, "test", spdlog::level::info,
                     std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  global_print("printed {}", 1);
  local_print("printed {}", 2);
  global_print_on(1, "not printed {}", 3);
  local_print_on(1, "not printed {}", 4);
  spdlog::default_logger()->flush();
  EXPECT_NE(out.str().find("printed 1"), std::string::npos);
  EXPECT_NE(out.str().find("printed 2"), std::string::npos);
  EXPECT_EQ(out.str().find("not printed"), std::string::npos);
}

TEST(NotDistributed, UserTimingTablesAndReportsSkipPartialSteps) {
  const auto t0 = timing_table_from_steps({{"sample", {0.5, 0.4}}, {"loss", {0.1, 0.3}}});
  EXPECT_EQ(t0.steps(), (std::vector<std::string>{"sample", "loss"}));
  EXPECT_DOUBLE_EQ(t0.total("loss"), 0.4);
  EXPECT_EQ(t0.num_iterations(), 2);
  const auto t1 = timing_table_from_steps({{"sample", {0.7, 0.6}}, {"unused", {}}});
  EXPECT_FALSE(t1.has_step("unused"));
  EXPECT_THROW(timing_table_from_steps({{"a", {1.0}}, {"b", {1.0, 2.0}}}), std::invalid_argument);
  EXPECT_THROW(timing_table_from_steps({{"a", {-1.0}}}), std::invalid_argument);
  EXPECT_THROW(timing_table_from_steps({{"a", {1.0}}, {"a", {1.0}}}), std::invalid_argument);

  std::ostringstream out;
  log::setup_logging(0, "test", spdlog::level::info,
                     std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  const auto imbalance = timing::report_load_imbalance({t0, t1});
  const auto info = timing::report_time_info({t0, t1});
  spdlog::default_logger()->flush();
  EXPECT_EQ(imbalance.skipped, std::vector<std::string>{"loss"});
  ASSERT_EQ(imbalance.steps.size(), 1u);
  EXPECT_NEAR(imbalance.steps[0].useful_s, 0.6 + 0.5, 1e-12);   // means 0.6, 0.5
  EXPECT_NEAR(imbalance.steps[0].waiting_s, 0.1 + 0.1, 1e-12);  // max - mean
  EXPECT_NE(out.str().find("step 'loss' is not timed on rank(s) 1, skipping it"), std::string::npos)
      << out.str();
  ASSERT_EQ(info.across.size(), 2u);
  EXPECT_EQ(info.across[1].num_ranks, 1);
  EXPECT_NE(out.str().find("step 'loss' is timed on 1 of 2 ranks"), std::string::npos);
}

}  // namespace
}  // namespace gfn::compat
