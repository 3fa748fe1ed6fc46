// The engine plan (runtime/gfn/engine_plan.h) as a table: a combination of engine options
// and run facts -> the plan's report (summary.json "engine") and thread counts, or the
// refusal. Each row names the entries it fixes; a row whose plan differs in any of them
// fails with the row's name, so changing a decision of plan_engine (or a row) fails here.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/engine_plan.h"

namespace gfn::core {
namespace {

// A recognisable fused-Adam kernel name, so the table sees where adam_kernel comes from.
constexpr const char* kKernel = "fused (this CPU)";

// The facts of HyperGrid 2-D h8 (64 states: the state table fits; row dynamics), loss tb,
// one thread, nothing else on.
EngineFacts grid_2d() {
  EngineFacts f;
  f.state_table_fits = true;
  f.row_dynamics = true;
  f.fused_adam_kernel = kKernel;
  return f;
}

// HyperGrid 4-D h8 (4096 states: too many for the state table).
EngineFacts grid_4d() {
  EngineFacts f = grid_2d();
  f.state_table_fits = false;
  return f;
}

struct Row {
  std::string name;
  std::function<void(EngineOptions&, EngineFacts&)> set;
  EngineFacts base;
  /// "key=value; key=value" over the report's keys and "threads" (intra-op/BLAS), or
  /// "refused: <substring of the message>".
  std::string expect;
};

std::vector<Row> rows() {
  const auto none = [](EngineOptions&, EngineFacts&) {};
  return {
      {"defaults, 2-D", none, grid_2d(),
       "evaluator=state_table; state_table=on; table_backward=manual; fused_tb=on; "
       "optimizer=flat; adam_kernel=fused (this CPU); plain_loops=on; reuse_logprobs=unused; "
       "fused_sampler=unused; precision=fp32; split_batch=off; split_rows=off; threads=1/1"},
      {"defaults, 4-D", none, grid_4d(),
       "evaluator=saved_outputs; state_table=off; table_backward=unused; fused_tb=unused; "
       "reuse_logprobs=on; fused_sampler=on; precision=fp32; split_rows=off; threads=1/1"},
      {"4-D, no row dynamics", [](auto&, auto& f) { f.row_dynamics = false; }, grid_4d(),
       "evaluator=saved_outputs; fused_sampler=unused (no row dynamics)"},
      {"4-D, loss fm",
       [](auto&, auto& f) {
         f.loss = LossKind::kFM;
         f.loss_reads_sampled_states = false;
       },
       grid_4d(), "evaluator=reference; reuse_logprobs=off; fused_sampler=unused"},
      {"4-D, replay fraction 1",
       [](auto&, auto& f) {
         f.replay = buffer::ReplayKind::kUniform;
         f.replay_fraction = 1.0;
       },
       grid_4d(), "evaluator=reference; reuse_logprobs=off (replay.fraction 1)"},
      {"4-D, replay fraction 0.5",
       [](auto&, auto& f) {
         f.replay = buffer::ReplayKind::kUniform;
         f.replay_fraction = 0.5;
       },
       grid_4d(), "evaluator=saved_outputs; reuse_logprobs=on"},
      {"4-D, reuse_logprobs false", [](auto& e, auto&) { e.reuse_logprobs = false; }, grid_4d(),
       "evaluator=reference; reuse_logprobs=off; fused_sampler=unused"},
      {"2-D, state_table off", [](auto& e, auto&) { e.state_table = StateTableMode::kOff; },
       grid_2d(), "evaluator=saved_outputs; state_table=off; fused_tb=unused; fused_sampler=on"},
      {"2-D, table_backward autograd",
       [](auto& e, auto&) { e.table_backward = TableBackward::kAutograd; }, grid_2d(),
       "evaluator=state_table; table_backward=autograd; fused_tb=off"},
      {"2-D, fused_tb false", [](auto& e, auto&) { e.fused_tb = false; }, grid_2d(),
       "table_backward=manual; fused_tb=off"},
      {"2-D, loss db", [](auto&, auto& f) { f.loss = LossKind::kDB; }, grid_2d(),
       "evaluator=state_table; table_backward=manual; fused_tb=off"},
      {"4-D, 2 threads", [](auto&, auto& f) { f.num_threads = 2; }, grid_4d(),
       "evaluator=saved_outputs; split_rows=2 threads; split_batch=off; threads=2/1"},
      {"4-D, 2 threads, reference",
       [](auto& e, auto& f) {
         f.num_threads = 2;
         e.reuse_logprobs = false;
       },
       grid_4d(), "evaluator=reference; split_rows=unused (reference evaluator); threads=1/2"},
      {"2-D, 2 threads", [](auto&, auto& f) { f.num_threads = 2; }, grid_2d(),
       "evaluator=state_table; split_rows=unused (state_table evaluator); threads=1/2"},
      {"4-D, 2 threads, split_rows false",
       [](auto& e, auto& f) {
         f.num_threads = 2;
         e.split_rows = false;
       },
       grid_4d(), "split_rows=off; threads=2/2"},
      {"4-D, 2 threads, split_batch",
       [](auto& e, auto& f) {
         f.num_threads = 2;
         e.split_batch = true;
       },
       grid_4d(), "evaluator=saved_outputs; split_batch=2 parts; split_rows=off; threads=1/1"},
      {"4-D, 3 threads, split_batch",
       [](auto& e, auto& f) {
         f.num_threads = 3;
         e.split_batch = true;
       },
       grid_4d(), "split_batch=3 parts; threads=1/1"},
      {"2-D, 2 threads, split_batch",
       [](auto& e, auto& f) {
         f.num_threads = 2;
         e.split_batch = true;
       },
       grid_2d(),
       "evaluator=state_table; split_batch=unused (state table); split_rows=off; threads=2/2"},
      {"4-D, 1 thread, split_batch, loss db",
       [](auto& e, auto& f) {
         e.split_batch = true;
         f.loss = LossKind::kDB;
       },
       grid_4d(), "split_batch=off; threads=1/1"},
      {"4-D, bf16", [](auto& e, auto&) { e.precision = Precision::kBf16; }, grid_4d(),
       "evaluator=saved_outputs; precision=bf16"},
      {"2-D, bf16", [](auto& e, auto&) { e.precision = Precision::kBf16; }, grid_2d(),
       "evaluator=state_table; precision=bf16"},
      {"4-D, bf16, loss fm",
       [](auto& e, auto& f) {
         e.precision = Precision::kBf16, f.loss = LossKind::kFM,
         f.loss_reads_sampled_states = false;
       },
       grid_4d(), "evaluator=reference; precision=bf16 unused (reference evaluator)"},
      {"optimizer torch", [](auto& e, auto&) { e.optimizer = OptimizerKind::kTorch; }, grid_4d(),
       "optimizer=torch; adam_kernel=torch"},
      {"fused_adam false", [](auto& e, auto&) { e.fused_adam = false; }, grid_4d(),
       "optimizer=flat; adam_kernel=ATen ops"},
      {"plain_loops false", [](auto& e, auto&) { e.plain_loops = false; }, grid_2d(),
       "plain_loops=off"},
      {"fused_sampler false", [](auto& e, auto&) { e.fused_sampler = false; }, grid_4d(),
       "evaluator=saved_outputs; fused_sampler=off"},
      {"bf16 on a CPU without it",
       [](auto& e, auto& f) {
         e.precision = Precision::kBf16;
         f.bf16_gemms = false;
         f.bf16_isa = "avx2";
       },
       grid_4d(), "refused: engine.precision: bf16 needs a CPU with bfloat16 instructions"},
      {"split_batch, 2 threads, loss db",
       [](auto& e, auto& f) {
         e.split_batch = true;
         f.num_threads = 2;
         f.loss = LossKind::kDB;
       },
       grid_4d(), "refused: needs train.loss tb"},
      {"split_batch, 2 threads, noisy layers",
       [](auto& e, auto& f) {
         e.split_batch = true;
         f.num_threads = 2;
         f.noisy_layers = true;
       },
       grid_4d(), "refused: not with noisy layers (model.n_noisy_layers)"},
      {"split_batch, 2 threads, local search",
       [](auto& e, auto& f) {
         e.split_batch = true;
         f.num_threads = 2;
         f.local_search = true;
       },
       grid_4d(), "refused: not with local search (local_search.loops)"},
      {"split_batch, 2 threads, local replay",
       [](auto& e, auto& f) {
         e.split_batch = true;
         f.num_threads = 2;
         f.replay = buffer::ReplayKind::kUniform;
       },
       grid_4d(), "refused: not with replay.kind uniform"},
  };
}

// "key=value; key=value" -> map.
std::map<std::string, std::string> parse(const std::string& expect) {
  std::map<std::string, std::string> out;
  std::istringstream in(expect);
  std::string item;
  while (std::getline(in, item, ';')) {
    const auto start = item.find_first_not_of(' ');
    const auto eq = item.find('=');
    out[item.substr(start, eq - start)] = item.substr(eq + 1);
  }
  return out;
}

// The plan as the table writes it: the report and the thread counts.
std::map<std::string, std::string> rendered(const EnginePlan& p) {
  std::map<std::string, std::string> out = p.report;
  out["threads"] = std::to_string(p.threads.intra_op) + "/" + std::to_string(p.threads.blas);
  return out;
}

TEST(EnginePlan, EveryRowOfTheTable) {
  for (const Row& row : rows()) {
    EngineOptions engine;
    EngineFacts facts = row.base;
    row.set(engine, facts);
    const std::string refused = "refused: ";
    if (row.expect.rfind(refused, 0) == 0) {
      try {
        plan_engine(engine, facts);
        ADD_FAILURE() << row.name << ": accepted, expected " << row.expect;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(row.expect.substr(refused.size())), std::string::npos)
            << row.name << ": " << e.what();
      }
      continue;
    }
    const auto plan = rendered(plan_engine(engine, facts));
    for (const auto& [key, value] : parse(row.expect)) {
      ASSERT_TRUE(plan.count(key)) << row.name << ": the plan has no '" << key << "'";
      EXPECT_EQ(plan.at(key), value) << row.name << ": " << key;
    }
  }
}

// The first row names every entry of the report: nothing is reported that the table does
// not check.
TEST(EnginePlan, TheTableCoversEveryReportedEntry) {
  const auto plan = rendered(plan_engine(EngineOptions{}, grid_2d()));
  const auto first = parse(rows().front().expect);
  for (const auto& [key, value] : plan) {
    EXPECT_TRUE(first.count(key)) << key << " is not in the first row";
  }
  EXPECT_EQ(first.size(), plan.size()) << "the first row checks every entry";
}

// The fields the consumers read agree with the report.
TEST(EnginePlan, FieldsAgreeWithTheReport) {
  EngineFacts f = grid_4d();
  f.num_threads = 2;
  EnginePlan p = plan_engine(EngineOptions{}, f);
  EXPECT_EQ(p.evaluator, EvaluatorKind::kSavedOutputs);
  EXPECT_EQ(p.row_split_threads, 2);
  EXPECT_EQ(p.split_batch_parts, 0);
  EXPECT_TRUE(p.fused_sampler);
  EngineOptions split;
  split.split_batch = true;
  p = plan_engine(split, f);
  EXPECT_EQ(p.split_batch_parts, 2);
  EXPECT_EQ(p.row_split_threads, 1);
  EngineOptions bf16;
  bf16.precision = Precision::kBf16;
  f.loss_reads_sampled_states = false;
  EXPECT_EQ(plan_engine(bf16, f).precision, Precision::kFp32) << "the reference has no bf16";
}

}  // namespace
}  // namespace gfn::core
