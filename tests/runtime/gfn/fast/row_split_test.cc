// engine.split_rows (runtime/gfn/fast/row_split.h) against one thread: the row ranges, the
// parallel region, the hand-written MLP forward and backward with 2 and 3 row parts against
// one (the state table's forward, the recorder over three records, the untied PB / logF
// pass; tied and untied trunks; float32 and bf16), and a Learner on two threads against one.

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/mlp_kernels.h"
#include "runtime/gfn/fast/row_split.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/process/threads.h"
#include "tests/runtime/gfn/fast/fast_test_support.h"
#include "tests/runtime/gfn/fast/mlp_test_support.h"

namespace gfn::core {
namespace {

// The ranges cover the rows in order without gaps, sizes differ by at most one, and no
// range is shorter than the minimum unless there is only one.
TEST(RowRanges, CoverTheRowsEvenlyAboveTheMinimum) {
  for (const std::int64_t rows : {0, 1, 63, 64, 127, 128, 129, 300, 1001}) {
    for (const int parts : {1, 2, 3, 8}) {
      SCOPED_TRACE(std::to_string(rows) + " rows, " + std::to_string(parts) + " parts");
      const auto ranges = row_ranges(rows, parts, 64);
      ASSERT_FALSE(ranges.empty());
      EXPECT_LE(ranges.size(), static_cast<std::size_t>(parts));
      EXPECT_EQ(ranges.front().begin, 0);
      EXPECT_EQ(ranges.back().end, rows);
      std::int64_t lo = rows, hi = 0;
      for (std::size_t k = 0; k < ranges.size(); ++k) {
        if (k > 0) {
          EXPECT_EQ(ranges[k].begin, ranges[k - 1].end);
        }
        lo = std::min(lo, ranges[k].size());
        hi = std::max(hi, ranges[k].size());
        if (ranges.size() > 1) {
          EXPECT_GE(ranges[k].size(), 64);
        }
      }
      EXPECT_LE(hi - lo, 1);
      // As many parts as the minimum allows.
      const std::int64_t most = std::max<std::int64_t>(1, std::min<std::int64_t>(parts, rows / 64));
      EXPECT_EQ(static_cast<std::int64_t>(ranges.size()), most);
    }
  }
  EXPECT_THROW(row_ranges(10, 0), std::invalid_argument);
  EXPECT_THROW(row_ranges(-1, 2), std::invalid_argument);
  EXPECT_THROW(row_ranges(10, 2, 0), std::invalid_argument);
}

// Every range runs once, on as many threads as ranges, without grad mode.
TEST(RunRowParts, RunsEveryRangeOnceOnItsOwnThread) {
  const auto ranges = row_ranges(300, 3, 64);
  ASSERT_EQ(ranges.size(), 3u);
  std::vector<std::atomic<int>> calls(3);
  std::atomic<int> grad_mode_on{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  run_row_parts(ranges, [&](std::size_t k, RowRange r) {
    EXPECT_EQ(r.begin, ranges[k].begin);
    EXPECT_EQ(r.end, ranges[k].end);
    ++calls[k];
    if (at::GradMode::is_enabled()) ++grad_mode_on;
    // Keep each thread busy long enough that one thread cannot take two ranges.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(m);
    threads.insert(std::this_thread::get_id());
  });
  for (const auto& c : calls) EXPECT_EQ(c.load(), 1);
  EXPECT_EQ(grad_mode_on.load(), 0);
  EXPECT_EQ(threads.size(), 3u);
  EXPECT_TRUE(threads.count(std::this_thread::get_id())) << "range 0 on the calling thread";
}

// A range's exception reaches the caller after every range finished.
TEST(RunRowParts, RethrowsAnErrorAfterEveryRangeFinished) {
  const auto ranges = row_ranges(256, 2, 64);
  std::atomic<int> finished{0};
  EXPECT_THROW(run_row_parts(ranges,
                             [&](std::size_t k, RowRange) {
                               if (k == 1) throw std::runtime_error("range 1");
                               std::this_thread::sleep_for(std::chrono::milliseconds(10));
                               ++finished;
                             }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 1);
}

// The MLP's outputs and gradients with the rows split over 2 and 3 threads equal one
// thread's: outputs within float rounding of a GEMM over other row counts, gradients (sums
// of the ranges' sums) within summation-order rounding, for every path, tied and untied, with
// a logF head, in float32 and bf16.
TEST(RowSplit, MlpForwardAndBackwardEqualOneThread) {
  const auto env = fast_test::grid(4, 8);
  const auto pre = make_preprocessor(PreprocessorKind::kKHot, *env);
  torch::manual_seed(21);
  const at::Tensor x = (*pre)(torch::randint(0, 8, {390, 4}, at::kLong));
  int compared = 0;
  for (const bool bf16 : {false, true}) {
    for (const bool tied : {false, true}) {
      for (const MlpPath path : {MlpPath::kTable, MlpPath::kRecorder, MlpPath::kPbAndFlow}) {
        if (tied && path == MlpPath::kPbAndFlow) continue;
        ModelOptions mo;
        mo.hidden_dim = 64;
        mo.n_hidden = 2;
        mo.tied = tied;
        torch::manual_seed(6);
        GFlowNetModel model(pre->output_dim(), env->n_actions(), mo, /*with_log_flow=*/true);
        const MlpResult one = run_mlp(model, x, path, MlpKernels{true, bf16, 1});
        for (const int parts : {2, 3}) {
          SCOPED_TRACE(std::string(bf16 ? "bf16 " : "fp32 ") + (tied ? "tied" : "untied") +
                       " path " + std::to_string(static_cast<int>(path)) + ", " +
                       std::to_string(parts) + " parts");
          const MlpResult split = run_mlp(model, x, path, MlpKernels{true, bf16, parts});
          ASSERT_EQ(split.outputs.size(), one.outputs.size());
          ASSERT_EQ(split.grads.size(), one.grads.size());
          for (std::size_t i = 0; i < one.outputs.size(); ++i) {
            EXPECT_TRUE(near_relative(split.outputs[i], one.outputs[i], 1e-6)) << "output " << i;
          }
          for (std::size_t i = 0; i < one.grads.size(); ++i) {
            if (one.grads[i].abs().sum().item<double>() == 0) continue;  // not in this path
            EXPECT_TRUE(near_relative(split.grads[i], one.grads[i], 1e-5)) << "gradient " << i;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GE(compared, 100);
}

// HyperGrid 4-D h8, the Learner tests' environment.
EnvOptions grid_4d_h8() {
  EnvOptions eo;
  eo.get<HyperGridOptions>().ndim = 4;
  eo.get<HyperGridOptions>().height = 8;
  return eo;
}

// A Learner on two threads with the rows split trains like one on one thread: HyperGrid 4-D
// h8, batch 256 (the later sampling steps and the backward have enough distinct rows to
// split), the same trajectories and, after five iterations, the same parameters up to float
// summation order; the plan's report names the split.
TEST(RowSplit, LearnerOnTwoThreadsTrainsLikeOne) {
  const EnvOptions eo = grid_4d_h8();
  ModelOptions mo;
  mo.hidden_dim = 64;
  TrainOptions to;
  to.batch_size = 256;
  EngineOptions engine;
  Learner one(eo, mo, to, /*seed=*/5, {}, engine);
  to.num_threads = 2;
  Learner two(eo, mo, to, /*seed=*/5, {}, engine);
  EXPECT_EQ(one.plan().report.at("split_rows"), "off");
  EXPECT_EQ(two.plan().report.at("split_rows"), "2 threads");
  runtime::set_thread_counts(one.plan().threads);
  runtime::set_thread_counts(two.plan().threads);
  IterationResult a, b;
  for (int i = 0; i < 5; ++i) {
    runtime::switch_thread_counts(one.plan().threads);
    a = one.train_iteration(to.batch_size);
    runtime::switch_thread_counts(two.plan().threads);
    b = two.train_iteration(to.batch_size);
    EXPECT_NEAR(a.loss, b.loss, 1e-4 * std::max(1.0, std::abs(a.loss))) << "iteration " << i;
  }
  EXPECT_TRUE(torch::equal(a.batch.terminating_states, b.batch.terminating_states));
  const auto pa = one.model().parameters(), pb = two.model().parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(near_relative(pb[i], pa[i], 1e-4)) << "parameter " << i;
  }
  to.num_threads = 2;
  engine.split_rows = false;
  EXPECT_EQ(Learner(eo, mo, to, 5, {}, engine).plan().report.at("split_rows"), "off");
  engine.split_rows = true;
  engine.split_batch = true;
  EXPECT_EQ(Learner(eo, mo, to, 5, {}, engine).plan().report.at("split_rows"), "off");
}

// Two runs on two threads with the same seed end bit-identical: the ranges and the order in
// which their gradients are summed are fixed for a thread count (what a resumed run needs).
TEST(RowSplit, TwoThreadsAreDeterministic) {
  ModelOptions mo;
  mo.hidden_dim = 64;
  TrainOptions to;
  to.batch_size = 256;
  to.num_threads = 2;
  Learner a(grid_4d_h8(), mo, to, /*seed=*/9);
  Learner b(grid_4d_h8(), mo, to, /*seed=*/9);
  ASSERT_EQ(a.plan().report.at("split_rows"), "2 threads");
  runtime::set_thread_counts(a.plan().threads);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(a.train_iteration(to.batch_size).loss, b.train_iteration(to.batch_size).loss) << i;
  }
  const auto pa = a.model().parameters(), pb = b.model().parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(torch::equal(pa[i], pb[i])) << "parameter " << i;
  }
}

// With the rows split the plan gives OpenBLAS one thread (the ranges are the parallelism);
// with an evaluator that does not split them (the reference), OpenBLAS gets
// train.num_threads and ATen one (the start-up's spin count would otherwise put spinning
// OpenMP threads beside OpenBLAS's). Building a Learner changes no thread count: the
// program applies the plan's (runtime/process/threads.h).
TEST(RowSplit, OpenBlasKeepsTheThreadsWhenRowsAreNotSplit) {
  runtime::set_thread_counts({1, 1});
  ASSERT_EQ(runtime::current_thread_counts().blas, 1) << "the tests run with OpenBLAS";
  const EnvOptions eo = grid_4d_h8();
  TrainOptions to;
  to.num_threads = 2;
  EngineOptions engine;
  Learner rows(eo, ModelOptions{}, to, 5, {}, engine);
  EXPECT_EQ(rows.plan().report.at("split_rows"), "2 threads");
  EXPECT_EQ(rows.plan().threads, (runtime::ThreadCounts{2, 1}));
  engine.reuse_logprobs = false;
  Learner reference(eo, ModelOptions{}, to, 5, {}, engine);
  EXPECT_EQ(reference.plan().report.at("split_rows"), "unused (reference evaluator)");
  EXPECT_EQ(reference.plan().threads, (runtime::ThreadCounts{1, 2}));
  EXPECT_EQ(runtime::current_thread_counts(), (runtime::ThreadCounts{1, 1}))
      << "a Learner sets no process-wide thread count";
  runtime::set_thread_counts(reference.plan().threads);
  EXPECT_EQ(runtime::current_thread_counts(), (runtime::ThreadCounts{1, 2}));
  runtime::switch_thread_counts(rows.plan().threads);
  EXPECT_EQ(runtime::current_thread_counts(), (runtime::ThreadCounts{2, 1}));
}

}  // namespace
}  // namespace gfn::core
