// Multi-rank tests of initialize_distributed_compute / _mpi (roles/context/initialize.h,
// torchgfn seed 003) and of the tensor collectives on the context's own groups.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "roles/context/initialize.h"
#include "runtime/compat/tensor_collectives.h"
#include "runtime/compat/tensor_gathers.h"
#include "tests/runtime/compat/dist_test_env.h"

namespace gfn::compat::testing {
namespace {

using InitializeTest = DistTest;

transport::TransportOptions test_options() {
  transport::TransportOptions o;
  o.timeout = transport::Seconds(kTestTimeoutS);
  return o;
}

TEST_F(InitializeTest, ContextOfTheRequestedBackendAndLayout) {
  // 1 rank: single trainer; 2 ranks: trainer + buffer; 4 ranks: 2 trainers, buffer, coordinator.
  const int buffers = world() >= 2 ? 1 : 0;
  const bool coordinator = world() >= 4;
  auto ctx =
      roles::initialize_distributed_compute(backend(), buffers, 1, coordinator, test_options());
  EXPECT_EQ(ctx->transport().backend(), backend());
  EXPECT_EQ(ctx->rank(), rank());
  EXPECT_EQ(ctx->world_size(), world());
  const int trainers = world() - buffers - (coordinator ? 1 : 0);
  EXPECT_EQ(ctx->layout().num_trainers(), trainers);
  EXPECT_EQ(ctx->layout().num_buffers(), buffers);
  EXPECT_EQ(ctx->is_coordinator_rank(), coordinator && rank() == world() - 1);
  EXPECT_EQ(ctx->is_training_rank() + ctx->is_buffer_rank() + ctx->is_coordinator_rank(), 1);
  EXPECT_EQ(ctx->is_training_rank(), rank() < trainers);  // [t t M C]: trainers first

  // Tensor collectives on the context's trainer group (another transport than WORLD's).
  transport::Group& train = ctx->trainer_group();
  EXPECT_EQ(train.is_member(), ctx->is_training_rank());
  if (train.is_member()) {
    at::Tensor t = at::full({2}, 1.0 + rank(), at::kDouble);
    all_reduce(t, transport::ReduceOp::kSum, &train);
    EXPECT_DOUBLE_EQ(t[0].item<double>(), trainers + trainers * (trainers - 1) / 2.0);
    const at::Tensor rows =
        gather_distributed_data(at::full({rank() + 1, 2}, rank(), at::kFloat), &train);
    if (get_rank(train) == 0) {
      EXPECT_EQ(rows.size(0), trainers * (trainers + 1) / 2);
    }
  }
  ctx->cleanup();
  ctx->cleanup();  // idempotent
}

TEST_F(InitializeTest, MpiVariantAndArgumentErrors) {
  auto ctx = roles::initialize_distributed_compute_mpi(world() >= 2 ? 1 : 0, 1, 0, test_options());
  EXPECT_EQ(ctx->transport().backend(), "mpi");
  EXPECT_EQ(ctx->layout().num_buffers(), world() >= 2 ? 1 : 0);
  ctx.reset();
  EXPECT_THROW(roles::initialize_distributed_compute_mpi(0, 1, 2), std::invalid_argument);
  EXPECT_THROW(roles::initialize_distributed_compute("ccl", 0, 1), std::invalid_argument);
  if (world() >= 2) {  // more buffer ranks than the world can hold: refused before communication
    EXPECT_THROW(roles::initialize_distributed_compute(backend(), world(), 1), roles::LayoutError);
  }
}

}  // namespace
}  // namespace gfn::compat::testing
