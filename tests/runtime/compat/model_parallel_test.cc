// torchshard.distributed model-parallel groups (seed 002) on 1, 2 and 4 ranks and both
// backends: layout, getters (-1 when not in a group), errors, destroy.

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "runtime/compat/model_parallel.h"
#include "runtime/compat/model_parallel_ops.h"
#include "runtime/compat/process_group.h"
#include "runtime/compat/topology_errors.h"
#include "tests/runtime/compat/topology_test_env.h"

namespace gfn::compat {
namespace {

using topology_testing::TopologyTest;

class ModelParallelGroupTest : public TopologyTest {
 protected:
  void TearDown() override {
    model_parallel::destroy_process_group();
    TopologyTest::TearDown();
  }
};

TEST_F(ModelParallelGroupTest, NotInitialized) {
  EXPECT_FALSE(model_parallel::is_initialized());
  EXPECT_EQ(model_parallel::get_rank(), -1);
  EXPECT_EQ(model_parallel::get_world_size(), -1);
  EXPECT_THROW(model_parallel::get_group(), ModelParallelError);
  EXPECT_THROW(model_parallel::get_group_size(), ModelParallelError);
  EXPECT_THROW(model_parallel::scatter(at::ones({2, 2})), ModelParallelError);
  EXPECT_THROW(model_parallel::gather(at::ones({2, 2})), ModelParallelError);
  EXPECT_THROW(model_parallel::reduce(at::ones({2, 2})), ModelParallelError);
  EXPECT_THROW(model_parallel::copy(at::ones({2, 2})), ModelParallelError);
  model_parallel::destroy_process_group();  // a no-op
  EXPECT_FALSE(model_parallel::is_initialized());
}

TEST_F(ModelParallelGroupTest, GroupsOfConsecutiveRanks) {
  for (int requested : {1, 2, 4, 8}) {
    SCOPED_TRACE(requested);
    const int g = std::min(requested, world());
    if (world() % g != 0) continue;
    model_parallel::init_process_group(requested);
    ASSERT_TRUE(model_parallel::is_initialized());
    EXPECT_EQ(model_parallel::get_group_size(), g);
    EXPECT_EQ(model_parallel::get_world_size(), g);
    EXPECT_EQ(model_parallel::get_rank(), rank() % g);
    std::vector<int> expected;
    for (int r = rank() / g * g; r < rank() / g * g + g; ++r) expected.push_back(r);
    transport::Group& group = model_parallel::get_group();
    EXPECT_EQ(group.global_ranks(), expected);
    // Traffic stays within the group.
    int v = rank();
    group.all_reduce(&v, 1, transport::DType::kInt32, transport::ReduceOp::kSum);
    int sum = 0;
    for (int r : expected) sum += r;
    EXPECT_EQ(v, sum);
    EXPECT_THROW(model_parallel::init_process_group(requested), ModelParallelError);
    model_parallel::destroy_process_group();
    EXPECT_FALSE(model_parallel::is_initialized());
    EXPECT_EQ(model_parallel::get_rank(), -1);
  }
}

TEST_F(ModelParallelGroupTest, ExplicitTransportOverload) {
  model_parallel::init_process_group(world(), default_transport());
  EXPECT_EQ(&model_parallel::get_group(), &world_group());
  EXPECT_EQ(model_parallel::get_rank(), rank());
}

TEST_F(ModelParallelGroupTest, BadGroupSizes) {
  EXPECT_THROW(model_parallel::init_process_group(), ModelParallelError);  // seed default -1
  EXPECT_THROW(model_parallel::init_process_group(0), ModelParallelError);
  if (world() == 4) {
    try {
      model_parallel::init_process_group(3);
      ADD_FAILURE() << "group size 3 of 4 accepted";
    } catch (const ModelParallelError& e) {
      EXPECT_NE(std::string(e.what()).find("not divisible by the group size 3"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(model_parallel::is_initialized());
}

TEST_F(ModelParallelGroupTest, NeedsTheDefaultProcessGroup) {
  shutdown_dist();
  EXPECT_THROW(model_parallel::init_process_group(1), NotInitializedError);
  EXPECT_FALSE(model_parallel::is_initialized());
}

}  // namespace
}  // namespace gfn::compat
