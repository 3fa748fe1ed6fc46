// Every Evaluator (runtime/gfn/evaluator.h) against the reference path: one typed suite run
// over the reference, the saved-outputs (on-policy reuse of the sampling forward, torchgfn's
// save_logprobs) and the state-table evaluators. Each must draw the reference's
// trajectories, give the loss, logZ estimate and gradients of a recomputation
// (model_evaluator, losses.h) for every loss, model variant and kind of batch (on-policy,
// off-policy, replayed), and train a Learner alike. The reference checks itself, so a
// broken comparison shows there too.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/gfn/env/discrete_ebm.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/hypergrid.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/evaluator.h"
#include "runtime/gfn/fast/make_evaluator.h"
#include "runtime/gfn/fast/saved_outputs_evaluator.h"
#include "runtime/gfn/fast/state_table_evaluator.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/losses.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/gfn/reference_evaluator.h"
#include "runtime/gfn/sampler.h"
#include "tests/runtime/gfn/fast/fast_test_support.h"

namespace gfn::core {
namespace {

using fast_test::ebm;
using fast_test::expect_same_trajectories;
using fast_test::grid;
using fast_test::off_policy;

constexpr double kRelTol = 1e-5;

std::unique_ptr<Preprocessor> preprocessor_of(const Environment& env) {
  return env.make_preprocessor(env.name() == "hypergrid" ? PreprocessorKind::kKHot
                                                         : PreprocessorKind::kIdentity);
}

// ||a - b|| <= tol * max(||b||, 1e-6): relative agreement of two tensors.
void expect_close(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.defined(), b.defined()) << what;
  if (!a.defined()) return;
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  const double diff = (a - b).norm().item<double>();
  const double ref = std::max(b.norm().item<double>(), 1e-6);
  EXPECT_LE(diff, kRelTol * ref) << what << ": |a - b| = " << diff << ", |b| = " << ref;
}

struct Grads {
  LossValue value;
  std::vector<at::Tensor> grads;
};

// The loss and every parameter's gradient (zeros where none) of one evaluation.
template <typename Evaluate>
Grads loss_and_grads(GFlowNetModel& model, Evaluate&& evaluate) {
  model.zero_grad();
  Grads out;
  out.value = evaluate();
  out.value.loss.backward();
  for (const auto& p : model.parameters()) {
    out.grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  return out;
}

// Model variants of the comparisons: learned PB, uniform PB, tied trunk, NoisyNet layers.
struct ModelVariant {
  std::string name;
  core::ModelOptions options;
};
std::vector<ModelVariant> model_variants() {
  std::vector<ModelVariant> v(4);
  for (auto& m : v) m.options.hidden_dim = 32;
  v[0].name = "untied";
  v[1].name = "uniform_pb";
  v[1].options.uniform_pb = true;
  v[2].name = "tied";
  v[2].options.tied = true;
  v[3].name = "noisy";
  v[3].options.n_hidden = 2;
  v[3].options.n_noisy_layers = 1;
  return v;
}

template <EvaluatorKind K>
struct Kind {
  static constexpr EvaluatorKind kind = K;
};
using Kinds = ::testing::Types<Kind<EvaluatorKind::kReference>, Kind<EvaluatorKind::kSavedOutputs>,
                               Kind<EvaluatorKind::kStateTable>>;
struct KindNames {
  template <typename T>
  static std::string GetName(int) {
    return config::enum_name(T::kind);
  }
};

// The default engine's plan for a small enumerable environment and loss tb: the state table
// with its manual backward and fused TB.
EnginePlan default_table_plan() {
  EngineFacts facts;
  facts.state_table_fits = true;
  return plan_engine(EngineOptions{}, facts);
}

template <typename T>
class EvaluatorEquivalence : public ::testing::Test {
 protected:
  static constexpr EvaluatorKind kKind = T::kind;

  // The evaluator under test, built directly (make_evaluator would pick the reference for
  // cases where this kind does not apply).
  static std::unique_ptr<Evaluator> make(GFlowNetModel& model, const Preprocessor& pre,
                                         const Environment& env) {
    switch (kKind) {
      case EvaluatorKind::kStateTable:
        return std::make_unique<StateTableEvaluator>(model, pre, env, default_table_plan());
      case EvaluatorKind::kSavedOutputs:
        return std::make_unique<SavedOutputsEvaluator>(model, pre, env, MlpKernels{});
      case EvaluatorKind::kReference:
        break;
    }
    return std::make_unique<ReferenceEvaluator>(model, pre, env);
  }

  // Engine options under which a Learner chooses this kind where it applies.
  static core::EngineOptions engine() {
    core::EngineOptions e;
    e.state_table = kKind == EvaluatorKind::kStateTable ? core::StateTableMode::kAuto
                                                        : core::StateTableMode::kOff;
    e.reuse_logprobs = kKind == EvaluatorKind::kSavedOutputs;
    return e;
  }
};
TYPED_TEST_SUITE(EvaluatorEquivalence, Kinds, KindNames);

// Fresh sampling draws the reference's trajectories with the same generator use, on- and
// off-policy, on HyperGrid and DiscreteEBM; the saved-outputs evaluator also keeps the
// differentiable sampling forward (PB / log F only from a tied trunk).
TYPED_TEST(EvaluatorEquivalence, SamplesTheReferenceTrajectories) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(ebm(4));
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = preprocessor_of(env);
    for (const bool tied : {false, true}) {
      core::ModelOptions mo;
      mo.hidden_dim = 32;
      mo.tied = tied;
      torch::manual_seed(3);
      GFlowNetModel model(pre->output_dim(), env.n_actions(), mo, /*with_log_flow=*/true);
      const auto evaluator = TestFixture::make(model, *pre, env);
      ASSERT_EQ(evaluator->kind(), TestFixture::kKind);
      ReferenceEvaluator reference(model, *pre, env);
      for (const SamplerOptions& opts : {SamplerOptions{}, off_policy()}) {
        SCOPED_TRACE(env.name() + (tied ? " tied" : " untied") + " epsilon " +
                     std::to_string(opts.epsilon));
        at::Generator g1 = at::detail::createCPUGenerator(11);
        at::Generator g2 = at::detail::createCPUGenerator(11);
        evaluator->begin_iteration(opts);
        const Trajectories got = evaluator->sample(200, opts, g1);
        const Trajectories want = reference.sample(200, opts, g2);
        expect_same_trajectories(got, want);
        EXPECT_TRUE(torch::equal(at::rand({4}, g1), at::rand({4}, g2)));
        EXPECT_FALSE(want.has_saved_outputs());
        const bool saves = TestFixture::kKind == EvaluatorKind::kSavedOutputs;
        ASSERT_EQ(got.has_saved_outputs(), saves);
        if (saves) {
          EXPECT_TRUE(got.saved_pf_logits.requires_grad());
          EXPECT_EQ(got.saved_pb_logits.defined(), tied);
          EXPECT_EQ(got.saved_log_flow.defined(), tied);
        }
        const Trajectories none = evaluator->sample(0, opts, g1);
        EXPECT_EQ(none.n_trajectories, 0);
        EXPECT_FALSE(none.has_saved_outputs());
      }
    }
  }
}

// Loss, logZ estimate and gradients through the evaluator equal those of recomputing the
// estimators on the batch (model_evaluator), for on-policy, off-policy and replayed
// (sampled from another policy, then attach_outputs) batches, for every loss (with and
// without a logF head), on HyperGrid and DiscreteEBM, for every model variant.
TYPED_TEST(EvaluatorEquivalence, LossAndGradientsEqualRecomputation) {
  std::vector<std::unique_ptr<Environment>> envs;
  envs.push_back(grid(2, 8));
  envs.push_back(ebm(4));
  int checked = 0;
  for (const auto& env_ptr : envs) {
    const Environment& env = *env_ptr;
    const auto pre = preprocessor_of(env);
    for (const auto& [kind, name_text] : kLossKindNames) {
      const std::string name = name_text;
      if (name == "modified_db" && !env.every_state_terminates()) continue;
      const auto loss = make_loss(kind);
      for (const ModelVariant& variant : model_variants()) {
        torch::manual_seed(5);
        GFlowNetModel model(pre->output_dim(), env.n_actions(), variant.options,
                            loss->needs_log_flow());
        {
          torch::NoGradGuard no_grad;
          model.log_z().fill_(0.7);
        }
        const auto evaluator = TestFixture::make(model, *pre, env);
        at::Generator gen = at::detail::createCPUGenerator(21);
        const PolicyFunction uniform = [&](const at::Tensor& s) {
          return torch::zeros({s.size(0), env.n_actions()});
        };
        for (int kind = 0; kind < 3; ++kind) {
          SCOPED_TRACE(env.name() + " " + name + " " + variant.name + " batch " +
                       std::to_string(kind));
          model.reset_noise(gen);  // one noise draw per iteration, before the evaluator's
          const SamplerOptions opts = kind == 1 ? off_policy() : SamplerOptions{};
          evaluator->begin_iteration(opts);
          Trajectories trajs;
          if (kind == 2) {  // "replayed"
            trajs = sample_trajectories(env, uniform, 64, {}, gen);
            evaluator->attach_outputs(trajs);
          } else {
            trajs = evaluator->sample(64, opts, gen);
          }
          const Grads got =
              loss_and_grads(model, [&] { return evaluator->loss(*loss, trajs, model.log_z()); });
          const Grads want = loss_and_grads(model, [&] {
            return loss->evaluate(env, trajs, model_evaluator(model, *pre, env), model.log_z());
          });
          EXPECT_GT(want.value.loss.item<double>(), 0.0);
          EXPECT_TRUE(torch::allclose(got.value.loss, want.value.loss, 1e-5, 1e-6))
              << got.value.loss.item<double>() << " vs " << want.value.loss.item<double>();
          expect_close(got.value.loss, want.value.loss, "loss");
          expect_close(got.value.log_z, want.value.log_z, "logZ estimate");
          ASSERT_EQ(got.grads.size(), want.grads.size());
          const auto names = model.named_parameters().keys();
          double total = 0;  // the comparison is not vacuous
          for (std::size_t i = 0; i < got.grads.size(); ++i) {
            EXPECT_TRUE(torch::allclose(got.grads[i], want.grads[i], 1e-4, 1e-6))
                << names[i] << " max diff "
                << (got.grads[i] - want.grads[i]).abs().max().item<double>();
            total += want.grads[i].abs().sum().item<double>();
          }
          EXPECT_GT(total, 0.0);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// A Learner with this evaluator trains like one on the reference path (engine.state_table
// off, engine.reuse_logprobs false): same losses and logZ over a few iterations up to float
// rounding, with every feature the fast paths must keep: off-policy sampling, NoisyNet
// layers (noise drawn before the evaluator's forward), the local replay buffer, remote
// (backward-sampled) states, losses with a logF head, and a DiscreteEBM. The saved-outputs
// evaluator applies only to on-policy iterations of losses that reuse; the Learner chooses
// the reference for the others.
TYPED_TEST(EvaluatorEquivalence, LearnerTrainsLikeTheReference) {
  struct Case {
    std::string name;
    core::EnvOptions env;
    core::ModelOptions model;
    core::TrainOptions train;
    buffer::ReplayOptions replay;
    bool remote = false;
  };
  std::vector<Case> cases;
  {
    Case c;
    c.name = "tb";
    cases.push_back(c);
    c.name = "tb noisy replay remote";
    c.model.n_noisy_layers = 2;
    c.replay.kind = buffer::ReplayKind::kUniform;
    c.replay.fraction = 0.5;
    c.replay.warmup = 32;
    c.remote = true;
    cases.push_back(c);
    c.name = "tb off-policy noisy replay remote";
    c.train.epsilon = 0.2;
    c.train.temperature = 1.5;
    cases.push_back(c);
    Case d;
    d.name = "subtb";
    d.train.loss = LossKind::kSubTB;
    cases.push_back(d);
    d.name = "fm";
    d.train.loss = LossKind::kFM;
    cases.push_back(d);
    Case e;
    e.name = "ebm db";
    e.env.name = "discrete_ebm";
    e.env.template get<core::DiscreteEbmOptions>().ndim = 4;
    e.env.preprocessor = PreprocessorKind::kIdentity;
    e.train.loss = LossKind::kDB;
    cases.push_back(e);
  }
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.env.name == "hypergrid") {
      c.env.template get<core::HyperGridOptions>().ndim = 2;
      c.env.template get<core::HyperGridOptions>().height = 8;
    }
    c.model.hidden_dim = 64;
    // Saved outputs for every loss that reuses them (not FM), exploring or not.
    const EvaluatorKind expected =
        TestFixture::kKind == EvaluatorKind::kSavedOutputs && c.train.loss == LossKind::kFM
            ? EvaluatorKind::kReference
            : TestFixture::kKind;
    std::vector<double> losses[2], log_z[2];
    for (int reference = 0; reference < 2; ++reference) {
      core::EngineOptions engine = TestFixture::engine();
      if (reference) {
        engine.state_table = core::StateTableMode::kOff;
        engine.reuse_logprobs = false;
      }
      Learner learner(c.env, c.model, c.train, 9, c.replay, engine);
      const EvaluatorKind kind = reference ? EvaluatorKind::kReference : expected;
      EXPECT_EQ(learner.plan().evaluator, kind);
      EXPECT_EQ(learner.plan().evaluator == EvaluatorKind::kStateTable,
                kind == EvaluatorKind::kStateTable);
      EXPECT_EQ(learner.plan().report.at("state_table"),
                kind == EvaluatorKind::kStateTable ? "on" : "off");
      for (int i = 0; i < 5; ++i) {
        if (c.remote && i == 3) {
          learner.batches().queue_states(learner.env().terminating_states().narrow(0, 5, 10));
        }
        const IterationResult r = learner.train_iteration(32);
        EXPECT_EQ(r.reused_logprobs, kind == EvaluatorKind::kSavedOutputs);
        if (c.remote && i == 3) {
          EXPECT_EQ(r.n_remote, 10);
        }
        if (c.replay.kind != buffer::ReplayKind::kNone && i >= 1) {
          EXPECT_GT(r.n_replayed, 0);
        }
        losses[reference].push_back(r.loss);
        log_z[reference].push_back(r.log_z);
      }
    }
    for (int i = 0; i < 5; ++i) {
      EXPECT_NEAR(losses[0][i], losses[1][i], 1e-4 * (1 + std::abs(losses[1][i]))) << i;
      EXPECT_NEAR(log_z[0][i], log_z[1][i], 1e-5) << i;
    }
  }
}

// The engine plan chooses this kind from the engine options where it applies, and
// make_evaluator builds it; a loss that cannot reuse the sampled outputs (fm) falls back to
// the reference.
TYPED_TEST(EvaluatorEquivalence, ThePlanChoosesItAndMakeEvaluatorBuildsIt) {
  const auto env = grid(2, 8);
  const auto pre = preprocessor_of(*env);
  torch::manual_seed(1);
  GFlowNetModel model(pre->output_dim(), env->n_actions(), core::ModelOptions{});
  const auto plan_for = [&](LossKind loss) {
    return plan_engine(TestFixture::engine(),
                       engine_facts(TestFixture::engine(), *env, *make_loss(loss), {}, {}, {}, {}));
  };
  const EnginePlan tb = plan_for(LossKind::kTB);
  EXPECT_EQ(tb.evaluator, TestFixture::kKind);
  EXPECT_EQ(make_evaluator(tb, model, *pre, *env)->kind(), TestFixture::kKind);
  EXPECT_EQ(plan_for(LossKind::kFM).evaluator, TestFixture::kKind == EvaluatorKind::kSavedOutputs
                                                   ? EvaluatorKind::kReference
                                                   : TestFixture::kKind);
  EXPECT_STRNE(config::enum_name(TestFixture::kKind), "?");
}

}  // namespace
}  // namespace gfn::core
