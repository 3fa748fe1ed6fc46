// engine.precision bf16 (runtime/gfn/fast/bf16_gemm.h, mlp_kernels.h) against its
// references: the rounding against ATen's float -> bfloat16 conversion, the GEMM against
// a float64 product of the same rounded operands, the hand-written MLP forward and
// backward against the float32 path, and a Learner's training against float32 training.
// Every test needs a CPU with bf16 instructions (the CI machine has them) and fails,
// not skips, without.

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/bf16_gemm.h"
#include "runtime/gfn/fast/manual_backward.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/preprocessors.h"
#include "tests/runtime/gfn/fast/fast_test_support.h"
#include "tests/runtime/gfn/fast/mlp_test_support.h"

namespace gfn::core {
namespace {

TEST(Bf16Gemm, ThisCpuHasBf16Instructions) {
  EXPECT_TRUE(bf16_gemm_supported()) << "oneDNN finds " << bf16_gemm_isa();
}

// to_bf16 rounds like ATen's conversion (round to nearest, ties to even) on random values
// of every magnitude, exact ties, subnormals and the special values.
TEST(Bf16Gemm, RoundingEqualsAtenConversion) {
  torch::manual_seed(3);
  std::vector<float> special = {0.0f,
                                -0.0f,
                                1.0f,
                                1.0f + 1.0f / 256,  // a tie: rounds down to even
                                1.0f + 3.0f / 256,  // a tie: rounds up to even
                                std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::min(),
                                std::numeric_limits<float>::denorm_min(),
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity()};
  const at::Tensor random =
      torch::randn({4096}) * torch::pow(10.0, torch::randint(-30, 30, {4096}).to(torch::kFloat));
  const at::Tensor x = torch::cat({torch::tensor(special), random}).reshape({-1, 2});
  const at::Tensor ours = to_bf16(x);
  ASSERT_EQ(ours.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(torch::equal(ours.view(at::kShort), x.to(at::kBFloat16).view(at::kShort)));

  const at::Tensor nan = to_bf16(torch::tensor({std::nanf("1"), -std::nanf("")}));
  EXPECT_TRUE(nan.to(at::kFloat).isnan().all().item<bool>());
  EXPECT_THROW(to_bf16(torch::zeros({2, 2}, at::kDouble)), std::invalid_argument);
  EXPECT_THROW(to_bf16(torch::zeros({4, 4}).t()), std::invalid_argument);
}

// c = op(a) op(b) (+ c) equals the float64 product of the same bf16 operands within
// float32 summation error (K roundings of 2^-24 of the absolute products), for every
// transpose and accumulate combination and shapes from one row to the backward's.
TEST(Bf16Gemm, EqualsFloat64ProductOfTheRoundedOperands) {
  torch::manual_seed(5);
  const std::vector<std::vector<std::int64_t>> shapes = {
      {1, 7, 3}, {17, 64, 256}, {83, 256, 9}, {300, 256, 256}, {256, 1779, 64}};
  int checked = 0;
  for (const auto& s : shapes) {
    const std::int64_t m = s[0], k = s[1], n = s[2];
    for (int flags = 0; flags < 8; ++flags) {
      const bool ta = flags & 4, tb = flags & 2, acc = flags & 1;
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                   " flags " + std::to_string(flags));
      const at::Tensor a = to_bf16(ta ? torch::randn({k, m}) : torch::randn({m, k}));
      const at::Tensor b = to_bf16(tb ? torch::randn({n, k}) : torch::randn({k, n}));
      const at::Tensor c0 = torch::randn({m, n});
      at::Tensor c = c0.clone();
      gemm_bf16(a, ta, b, tb, c, acc);
      const at::Tensor ad = ta ? a.to(at::kDouble).t() : a.to(at::kDouble);
      const at::Tensor bd = tb ? b.to(at::kDouble).t() : b.to(at::kDouble);
      const at::Tensor expected = ad.mm(bd) + (acc ? c0.to(at::kDouble) : torch::zeros({m, n}));
      const at::Tensor bound = (ad.abs().mm(bd.abs()) + c0.to(at::kDouble).abs()) *
                                   (2.0 * static_cast<double>(k + 1) * std::ldexp(1.0, -24)) +
                               1e-30;
      const at::Tensor err = (c.to(at::kDouble) - expected).abs();
      EXPECT_TRUE((err <= bound).all().item<bool>())
          << "max error " << err.max().item<double>() << ", max |c| "
          << expected.abs().max().item<double>();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 40);
}

TEST(Bf16Gemm, RefusesMismatchedOperands) {
  const at::Tensor a = to_bf16(torch::randn({4, 8}));
  const at::Tensor b = to_bf16(torch::randn({8, 3}));
  at::Tensor c = torch::zeros({4, 3});
  EXPECT_NO_THROW(gemm_bf16(a, false, b, false, c, false));
  at::Tensor wrong_c = torch::zeros({4, 4});
  EXPECT_THROW(gemm_bf16(a, false, b, false, wrong_c, false), std::invalid_argument);
  EXPECT_THROW(gemm_bf16(a, true, b, false, c, false), std::invalid_argument);
  const at::Tensor a_float = torch::randn({4, 8});
  EXPECT_THROW(gemm_bf16(a_float, false, b, false, c, false), std::invalid_argument);
  at::Tensor c_double = torch::zeros({4, 3}, at::kDouble);
  EXPECT_THROW(gemm_bf16(a, false, b, false, c_double, false), std::invalid_argument);
}

// The untied PB / logF nets by the hand-written forward and backward in float32 equal
// model.forward's PB logits, log F and gradients under autograd (up to GEMM summation
// order), with and without a logF head; a tied model is refused.
TEST(Bf16Gemm, PbAndFlowManualBackwardEqualsAutograd) {
  const auto env = fast_test::grid(3, 6);
  const auto pre = make_preprocessor(PreprocessorKind::kKHot, *env);
  torch::manual_seed(2);
  const at::Tensor x = (*pre)(torch::randint(0, 6, {50, 3}, at::kLong));
  for (const bool with_flow : {false, true}) {
    SCOPED_TRACE(with_flow ? "with logF" : "without logF");
    ModelOptions mo;
    mo.hidden_dim = 48;
    torch::manual_seed(9);
    GFlowNetModel model(pre->output_dim(), env->n_actions(), mo, with_flow);
    MlpResult manual = run_mlp(model, x, MlpPath::kPbAndFlow, MlpKernels{});
    MlpResult reference = run_mlp(model, x, MlpPath::kAutograd, MlpKernels{});
    // The reference also differentiates PF's log-softmax: compare PB / logF outputs and
    // the gradients of the parameters PF does not share (autograd's PF gradients aside).
    reference.outputs.erase(reference.outputs.begin());
    ASSERT_EQ(manual.outputs.size(), with_flow ? 2u : 1u);
    ASSERT_EQ(manual.outputs.size(), reference.outputs.size());
    for (std::size_t i = 0; i < manual.outputs.size(); ++i) {
      EXPECT_TRUE(near_relative(manual.outputs[i], reference.outputs[i], 1e-6)) << i;
    }
    int compared = 0;
    for (std::size_t i = 0; i < manual.grads.size(); ++i) {
      if (manual.grads[i].abs().sum().item<double>() == 0) continue;  // PF's parameters
      EXPECT_TRUE(near_relative(manual.grads[i], reference.grads[i], 1e-5)) << "parameter " << i;
      ++compared;
    }
    EXPECT_EQ(compared, with_flow ? 12 : 6);  // (W, b) x 3 layers per net
  }
  ModelOptions tied;
  tied.tied = true;
  GFlowNetModel model(pre->output_dim(), env->n_actions(), tied, false);
  EXPECT_THROW(pb_and_flow_manual_backward(model, x, MlpKernels{}), std::logic_error);
}

// The bf16 MLP forward and backward stay within bf16's rounding of the float32 path:
// outputs within 2 % of their scale, every gradient within 5 % of its scale and at
// cosine > 0.999 with float32's, for the state table's forward, the recorder and the
// untied PB / logF nets, tied and untied trunks, with a logF head.
TEST(Bf16Gemm, MlpForwardAndBackwardCloseToFloat32) {
  const auto env = fast_test::grid(4, 8);
  const auto pre = make_preprocessor(PreprocessorKind::kKHot, *env);
  torch::manual_seed(12);
  const at::Tensor states = torch::randint(0, 8, {240, 4}, at::kLong);
  const at::Tensor x = (*pre)(states);
  int compared = 0;
  for (const bool tied : {false, true}) {
    for (const MlpPath path : {MlpPath::kTable, MlpPath::kRecorder, MlpPath::kPbAndFlow}) {
      if (tied && path == MlpPath::kPbAndFlow) continue;
      SCOPED_TRACE(std::string(tied ? "tied" : "untied") + " path " +
                   std::to_string(static_cast<int>(path)));
      ModelOptions mo;
      mo.hidden_dim = 256;
      mo.n_hidden = 2;
      mo.tied = tied;
      torch::manual_seed(4);
      GFlowNetModel model(pre->output_dim(), env->n_actions(), mo, /*with_log_flow=*/true);
      const MlpResult fp32 = run_mlp(model, x, path, MlpKernels{true, false});
      const MlpResult bf16 = run_mlp(model, x, path, MlpKernels{true, true});
      ASSERT_EQ(fp32.outputs.size(), bf16.outputs.size());
      ASSERT_EQ(fp32.grads.size(), bf16.grads.size());
      for (std::size_t i = 0; i < fp32.outputs.size(); ++i) {
        EXPECT_TRUE(near_relative(bf16.outputs[i], fp32.outputs[i], 2e-2)) << "output " << i;
        EXPECT_FALSE(torch::equal(bf16.outputs[i], fp32.outputs[i])) << "bf16 not used";
      }
      for (std::size_t i = 0; i < fp32.grads.size(); ++i) {
        if (fp32.grads[i].abs().sum().item<double>() == 0) continue;  // not in this path
        EXPECT_TRUE(near_relative(bf16.grads[i], fp32.grads[i], 5e-2)) << "gradient " << i;
        EXPECT_GT(cosine(bf16.grads[i], fp32.grads[i]), 0.999) << "gradient " << i;
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 50);
}

// Training with engine.precision bf16 learns the distribution as float32 training does:
// HyperGrid 2-D h8 (state table) and 4-D h5 (on-policy reuse of the sampling forward),
// the exact L1 distance after training within 0.05 of float32's and far below the start.
TEST(Bf16Gemm, LearnerTrainsLikeFloat32) {
  for (const int ndim : {2, 4}) {
    SCOPED_TRACE("ndim " + std::to_string(ndim));
    EnvOptions eo;
    eo.get<HyperGridOptions>().ndim = ndim;
    eo.get<HyperGridOptions>().height = ndim == 2 ? 8 : 5;
    ModelOptions mo;
    mo.hidden_dim = 64;
    TrainOptions to;
    ValidationOptions vo;
    vo.n_samples = 1000;
    double start = 0, end[2] = {0, 0};
    for (int bf16 = 0; bf16 < 2; ++bf16) {
      EngineOptions engine;
      engine.precision = bf16 ? Precision::kBf16 : Precision::kFp32;
      Learner learner(eo, mo, to, 7, buffer::ReplayOptions{}, engine);
      EXPECT_EQ(learner.plan().report.at("precision"), bf16 ? "bf16" : "fp32");
      EXPECT_EQ(learner.plan().report.at(ndim == 2 ? "state_table" : "reuse_logprobs"), "on");
      start = learner.validate(vo).l1_exact;
      for (int i = 0; i < 300; ++i) learner.train_iteration(64);
      end[bf16] = learner.validate(vo).l1_exact;
    }
    EXPECT_LT(end[0], 0.5 * start);
    EXPECT_NEAR(end[1], end[0], 0.05) << "start " << start;
  }
}

}  // namespace
// summary.json's engine.precision says when bf16 does nothing: the reference evaluator
// (engine.reuse_logprobs off, no state table) has no bf16 GEMMs. Exploring iterations
// (temperature, epsilon) keep the saved-outputs path, so bf16 is in effect there.
TEST(Bf16Learner, PrecisionReportsTheReferenceEvaluatorAsUnused) {
  EnvOptions eo;
  eo.get<HyperGridOptions>().ndim = 4;
  eo.get<HyperGridOptions>().height = 5;
  TrainOptions explore;
  explore.temperature = 0.75;
  explore.epsilon = 0.05;
  EngineOptions engine;
  engine.precision = Precision::kBf16;
  Learner exploring(eo, ModelOptions{}, explore, 7, buffer::ReplayOptions{}, engine);
  EXPECT_EQ(exploring.plan().evaluator, EvaluatorKind::kSavedOutputs);
  EXPECT_EQ(exploring.plan().report.at("precision"), "bf16");
  engine.reuse_logprobs = false;
  Learner reference(eo, ModelOptions{}, explore, 7, buffer::ReplayOptions{}, engine);
  EXPECT_EQ(reference.plan().evaluator, EvaluatorKind::kReference);
  EXPECT_EQ(reference.plan().report.at("precision"), "bf16 unused (reference evaluator)");
}

}  // namespace gfn::core
