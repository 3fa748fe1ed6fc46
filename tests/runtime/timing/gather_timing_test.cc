// Multi-rank test (run under mpirun): every rank's TimingTable reaches the root
// intact, in group-rank order, over the real MPI transport; non-roots get nothing.
#include <gtest/gtest.h>

#include <memory>

#include "runtime/timing/gather.h"
#include "runtime/timing/reports.h"
#include "transport/factory.h"

namespace gfn::timing {
namespace {

std::unique_ptr<transport::Transport> g_transport;

TimingTable table_of(int rank) {
  TimingTable t;
  for (int it = 0; it < 2; ++it) {
    t.begin_iteration();
    t.add("sample", 1.0 + rank + it);  // rank r: [1+r, 2+r]
    if (rank % 2 == 0) t.add("even_only", 0.5);
  }
  return t;
}

TEST(GatherTimingTables, WorldToEachRoot) {
  transport::Group& world = g_transport->world();
  const int n = world.size();
  for (int root = 0; root < n; ++root) {
    const auto tables = gather_timing_tables(world, table_of(world.rank()), root);
    if (world.rank() != root) {
      EXPECT_TRUE(tables.empty());
      continue;
    }
    ASSERT_EQ(static_cast<int>(tables.size()), n);
    for (int r = 0; r < n; ++r) EXPECT_TRUE(tables[r] == table_of(r)) << "rank " << r;
    // sample, iteration 0: values 1..n -> mean (n+1)/2, max n; same waiting in iteration 1.
    const LoadImbalanceReport report = report_load_imbalance(tables);
    ASSERT_FALSE(report.steps.empty());
    EXPECT_DOUBLE_EQ(report.steps[0].useful_s, (n + 1) / 2.0 + (n + 3) / 2.0);
    EXPECT_DOUBLE_EQ(report.steps[0].waiting_s, 2 * (n - (n + 1) / 2.0));
  }
}

TEST(GatherTimingTables, SubGroupOfOddRanks) {
  std::vector<int> odd;
  for (int r = 1; r < g_transport->world_size(); r += 2) odd.push_back(r);
  auto group = g_transport->new_group(odd);
  if (!group->is_member()) return;
  const auto tables = gather_timing_tables(*group, table_of(g_transport->rank()), 0);
  if (group->rank() != 0) return;
  ASSERT_EQ(tables.size(), odd.size());
  for (std::size_t i = 0; i < odd.size(); ++i) EXPECT_TRUE(tables[i] == table_of(odd[i]));
}

}  // namespace
}  // namespace gfn::timing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  gfn::timing::g_transport = gfn::transport::make_transport(gfn::transport::Backend::kMpi, {});
  const int result = RUN_ALL_TESTS();
  gfn::timing::g_transport.reset();
  return result;
}
