// Multi-rank tests of the tensor collectives (gfn.utils.distributed seed 003, helios
// seed 000) and of the timing reports on gathered user tables, on the backend of the
// test main.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/compat/tensor_collectives.h"
#include "runtime/compat/tensor_gathers.h"
#include "runtime/compat/timing_tables.h"
#include "runtime/timing/gather.h"
#include "runtime/timing/reports.h"
#include "tests/runtime/compat/dist_test_env.h"

namespace gfn::compat::testing {
namespace {

using TensorTest = DistTest;

// Rank r's rows for the variable-length gather: (r + 1) % 3 rows of 3 values, row i
// of rank r = [100 r + 10 i, 100 r + 10 i + 1, 100 r + 10 i + 2].
at::Tensor rows_of(int r, at::ScalarType dtype) {
  const int n = (r + 1) % 3;
  return (at::arange(3 * n, at::kLong).reshape({n, 3}) % 3 + 100 * r +
          10 * (at::arange(n, at::kLong).reshape({n, 1})))
      .to(dtype);
}

TEST_F(TensorTest, RankAndWorldSizeOfAnyGroup) {
  EXPECT_EQ(get_rank(world_group()), rank());
  EXPECT_EQ(get_world_size(world_group()), world());
  auto last = default_transport().new_group({world() - 1});
  EXPECT_EQ(get_rank(*last), rank() == world() - 1 ? 0 : -1);
  EXPECT_EQ(get_world_size(*last), 1);
}

TEST_F(TensorTest, BroadcastOverwritesWithTheRootValue) {
  const int root = world() - 1;
  at::Tensor t = at::full({2, 3}, static_cast<double>(rank()), at::kDouble);
  broadcast(t, root);
  EXPECT_TRUE(at::equal(t, at::full({2, 3}, static_cast<double>(root), at::kDouble)));
  // Non-contiguous tensor and a dtype the reductions do not support (bool).
  at::Tensor wide = at::zeros({3, 4}, at::kFloat);
  if (rank() == root) wide.copy_(at::arange(12, at::kFloat).reshape({3, 4}));
  at::Tensor view = wide.t();  // 4x3, non-contiguous
  broadcast(view, root);
  EXPECT_TRUE(at::equal(wide, at::arange(12, at::kFloat).reshape({3, 4})));
  at::Tensor flags = at::full({5}, rank() == root, at::kBool);
  broadcast(flags, root);
  EXPECT_TRUE(flags.all().item<bool>());
  EXPECT_THROW(broadcast(t, world()), std::invalid_argument);
}

TEST_F(TensorTest, AllReduceSumMaxMinAvg) {
  const double W = world();
  at::Tensor s = at::tensor({1.0 * rank(), 1.0}, at::kDouble);
  all_reduce(s);
  EXPECT_DOUBLE_EQ(s[0].item<double>(), W * (W - 1) / 2);
  EXPECT_DOUBLE_EQ(s[1].item<double>(), W);
  at::Tensor mx = at::tensor({rank(), -rank()}, at::kInt);
  all_reduce(mx, transport::ReduceOp::kMax);
  EXPECT_EQ(mx[0].item<int>(), world() - 1);
  EXPECT_EQ(mx[1].item<int>(), 0);
  at::Tensor mn = at::tensor({static_cast<std::int64_t>(rank() + 5)}, at::kLong);
  all_reduce(mn, transport::ReduceOp::kMin);
  EXPECT_EQ(mn[0].item<std::int64_t>(), 5);
  at::Tensor avg = at::full({2, 2}, 2.0f * rank(), at::kFloat).t();  // non-contiguous
  all_reduce(avg, transport::ReduceOp::kAvg);
  EXPECT_TRUE(at::allclose(avg, at::full({2, 2}, static_cast<float>(W - 1), at::kFloat)));
  at::Tensor ints = at::ones({2}, at::kInt);
  EXPECT_THROW(all_reduce(ints, transport::ReduceOp::kAvg), std::invalid_argument);
  at::Tensor halves = at::ones({2}, at::kHalf);
  EXPECT_THROW(all_reduce(halves), std::invalid_argument);
}

TEST_F(TensorTest, AllGatherIntoPreallocatedAndNewTensors) {
  const at::Tensor mine = at::full({2, 2}, static_cast<std::int64_t>(rank() * 10), at::kLong);
  std::vector<at::Tensor> out;
  for (int r = 0; r < world(); ++r) out.push_back(at::empty({4}, at::kLong));  // any shape
  all_gather(out, mine);
  for (int r = 0; r < world(); ++r) {
    EXPECT_TRUE(at::equal(out[r], at::full({4}, static_cast<std::int64_t>(r * 10), at::kLong)));
  }
  const auto fresh = all_gather(mine);
  ASSERT_EQ(static_cast<int>(fresh.size()), world());
  for (int r = 0; r < world(); ++r) EXPECT_TRUE(at::equal(fresh[r], mine * 0 + r * 10));
  std::vector<at::Tensor> too_few(static_cast<std::size_t>(world() + 1), at::empty({4}, at::kLong));
  EXPECT_THROW(all_gather(too_few, mine), std::invalid_argument);
  std::vector<at::Tensor> wrong(static_cast<std::size_t>(world()), at::empty({4}, at::kInt));
  EXPECT_THROW(all_gather(wrong, mine), std::invalid_argument);
}

TEST_F(TensorTest, GatherIntoTensorStacksEveryRank) {
  // helios gather_into_tensor(tensor, size): [2, 3] per rank -> [2W, 3] on every rank.
  const at::Tensor mine = at::arange(6, at::kFloat).reshape({2, 3}) + 100.0f * rank();
  const at::Tensor all = gather_into_tensor(mine, {2 * world(), 3});
  ASSERT_EQ(all.sizes(), (std::vector<std::int64_t>{2 * world(), 3}));
  for (int r = 0; r < world(); ++r) {
    EXPECT_TRUE(
        at::equal(all.narrow(0, 2 * r, 2), at::arange(6, at::kFloat).reshape({2, 3}) + 100.0f * r));
  }
  const at::Tensor stacked = gather_into_tensor(mine);
  ASSERT_EQ(stacked.sizes(), (std::vector<std::int64_t>{world(), 2, 3}));
  EXPECT_TRUE(at::equal(stacked.reshape({2 * world(), 3}), all));
  EXPECT_THROW(gather_into_tensor(mine, {2 * world(), 4}), std::invalid_argument);
}

TEST_F(TensorTest, AllReduceTensorsConcatenatesAList) {
  const double W = world();
  at::Tensor single = at::full({3}, 1.0 + rank(), at::kDouble);
  const at::Tensor same = all_reduce_tensors(single);
  EXPECT_TRUE(same.is_same(single));  // in place, as torch.distributed.all_reduce
  EXPECT_TRUE(at::allclose(single, at::full({3}, W + W * (W - 1) / 2, at::kDouble)));
  const at::Tensor a = at::full({2}, 1.0f * rank(), at::kFloat);
  const at::Tensor b = at::ones({3}, at::kFloat);
  const at::Tensor c = at::scalar_tensor(2.0f, at::kFloat);  // 0-dim: one row
  const at::Tensor cat = all_reduce_tensors({a, b, c});
  ASSERT_EQ(cat.numel(), 6);
  EXPECT_FLOAT_EQ(cat[0].item<float>(), static_cast<float>(W * (W - 1) / 2));
  EXPECT_FLOAT_EQ(cat[2].item<float>(), static_cast<float>(W));
  EXPECT_FLOAT_EQ(cat[5].item<float>(), static_cast<float>(2 * W));
  EXPECT_FLOAT_EQ(a[0].item<float>(), static_cast<float>(rank()));  // inputs untouched
  const at::Tensor mx = all_reduce_tensors({a}, transport::ReduceOp::kMax);
  EXPECT_FLOAT_EQ(mx[1].item<float>(), static_cast<float>(W - 1));
  EXPECT_THROW(all_reduce_tensors(std::vector<at::Tensor>{}), std::invalid_argument);
}

TEST_F(TensorTest, GatherDistributedDataConcatenatesRowsOnRankZero) {
  for (const auto dtype : {at::kFloat, at::kLong}) {
    const at::Tensor got = gather_distributed_data(rows_of(rank(), dtype));
    if (rank() != 0) {
      EXPECT_FALSE(got.defined());
      continue;
    }
    std::vector<at::Tensor> parts;
    for (int r = 0; r < world(); ++r) parts.push_back(rows_of(r, dtype));
    const at::Tensor expected = at::cat(parts, 0);
    ASSERT_TRUE(got.defined());
    EXPECT_EQ(got.scalar_type(), dtype);
    EXPECT_EQ(got.sizes(), expected.sizes());
    EXPECT_TRUE(at::equal(got, expected));
  }
  // Mismatched trailing shape: group rank 0 reports the offending rank.
  const at::Tensor bad = at::zeros({1, rank() == world() - 1 && world() > 1 ? 4 : 3}, at::kFloat);
  if (rank() == 0 && world() > 1) {
    EXPECT_THROW(gather_distributed_data(bad), std::invalid_argument);
  } else {
    EXPECT_NO_THROW(gather_distributed_data(bad));
  }
}

TEST_F(TensorTest, CollectivesOnASubgroup) {
  std::vector<int> members;  // every rank but 0, in descending order (or rank 0 alone)
  for (int r = world() - 1; r >= 1; --r) members.push_back(r);
  if (members.empty()) members.push_back(0);
  auto sub = default_transport().new_group(members);
  at::Tensor t = at::full({2}, static_cast<float>(rank()), at::kFloat);
  if (!sub->is_member()) {
    EXPECT_THROW(all_reduce(t, transport::ReduceOp::kSum, sub.get()), transport::TransportError);
    EXPECT_THROW(gather_distributed_data(at::zeros({1, 1}), sub.get()), transport::TransportError);
    return;
  }
  all_reduce(t, transport::ReduceOp::kMax, sub.get());
  EXPECT_FLOAT_EQ(t[0].item<float>(), static_cast<float>(members.front()));
  const at::Tensor got = gather_distributed_data(at::full({1, 2}, rank(), at::kInt), sub.get());
  if (sub->rank() == 0) {
    ASSERT_EQ(got.size(0), static_cast<std::int64_t>(members.size()));
    for (std::size_t i = 0; i < members.size(); ++i) EXPECT_EQ(got[i][0].item<int>(), members[i]);
  } else {
    EXPECT_FALSE(got.defined());
  }
  const at::Tensor stacked = gather_into_tensor(at::full({1}, rank(), at::kInt), sub.get());
  for (std::size_t i = 0; i < members.size(); ++i) EXPECT_EQ(stacked[i][0].item<int>(), members[i]);
}

TEST_F(TensorTest, TimingReportsOnGatheredUserTablesSkipPartialSteps) {
  // Every rank times "sample" for 2 iterations; only rank 0 times "setup".
  std::vector<std::pair<std::string, std::vector<double>>> steps = {
      {"sample", {1.0 + rank(), 1.0}}};
  if (rank() == 0) steps.push_back({"setup", {0.5, 0.0}});
  const auto tables =
      timing::gather_timing_tables(world_group(), timing_table_from_steps(steps), 0);
  if (rank() != 0) {
    EXPECT_TRUE(tables.empty());
    return;
  }
  ASSERT_EQ(static_cast<int>(tables.size()), world());
  const auto imbalance = timing::report_load_imbalance(tables);
  const double W = world();
  ASSERT_FALSE(imbalance.steps.empty());
  EXPECT_EQ(imbalance.steps[0].step, "sample");
  // Iteration 0: mean 1 + (W-1)/2, max W; iteration 1: all 1.
  EXPECT_NEAR(imbalance.steps[0].useful_s, 1.0 + (W - 1) / 2 + 1.0, 1e-12);
  EXPECT_NEAR(imbalance.steps[0].waiting_s, W - (1.0 + (W - 1) / 2), 1e-12);
  const auto info = timing::report_time_info(tables);
  ASSERT_EQ(info.across.size(), 2u);
  EXPECT_EQ(info.across[1].step, "setup");
  EXPECT_EQ(info.across[1].num_ranks, 1);
  if (world() > 1) {
    EXPECT_EQ(imbalance.skipped, std::vector<std::string>{"setup"});
  } else {
    EXPECT_TRUE(imbalance.skipped.empty());
  }
}

}  // namespace
}  // namespace gfn::compat::testing
