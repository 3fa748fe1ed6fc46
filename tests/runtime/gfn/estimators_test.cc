#include "runtime/gfn/estimators.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>
#include <string>

namespace gfn::core {
namespace {

std::set<std::string> names(const GFlowNetModel& m) {
  std::set<std::string> out;
  for (const auto& kv : m.named_parameters()) out.insert(kv.key());
  return out;
}

TEST(Estimators, ArchitectureAndSharing) {
  core::ModelOptions o;
  o.hidden_dim = 32;
  o.n_hidden = 2;
  GFlowNetModel untied(16, 3, o);
  // PF: 16x32 + 32 + 32x32 + 32 + 32x3 + 3; PB the same with 2 outputs; logZ 1.
  int64_t n = 0;
  for (const auto& p : untied.parameters()) n += p.numel();
  EXPECT_EQ(n, (16 * 32 + 32 + 32 * 32 + 32 + 32 * 3 + 3) +
                   (16 * 32 + 32 + 32 * 32 + 32 + 32 * 2 + 2) + 1);
  EXPECT_TRUE(names(untied).count("logZ"));
  EXPECT_TRUE(names(untied).count("pb_trunk.0.weight"));
  EXPECT_EQ(untied.log_z().item<float>(), 0.f);
  EXPECT_EQ(untied.log_z().dim(), 0);

  o.tied = true;
  GFlowNetModel tied(16, 3, o);
  EXPECT_FALSE(names(tied).count("pb_trunk.0.weight"));
  EXPECT_TRUE(names(tied).count("pb_head.weight"));

  o.tied = false;
  o.uniform_pb = true;
  GFlowNetModel uniform(16, 3, o);
  EXPECT_FALSE(names(uniform).count("pb_head.weight"));
  const at::Tensor x = torch::rand({5, 16});
  const PolicyOutputs out = uniform.forward(x, 2);
  EXPECT_EQ(out.pf_logits.sizes(), (at::IntArrayRef{5, 3}));
  EXPECT_TRUE(at::equal(out.pb_logits, torch::zeros({3, 2})));

  // Tied forward equals the separate evaluations.
  const PolicyOutputs t = tied.forward(x, 1);
  EXPECT_TRUE(at::allclose(t.pf_logits, tied.pf_logits(x)));
  EXPECT_TRUE(at::allclose(t.pb_logits, tied.pb_logits(x).narrow(0, 1, 4)));
  EXPECT_THROW(tied.forward(x, 6), std::invalid_argument);
}

TEST(Estimators, LogFlowHead) {
  core::ModelOptions o;
  o.hidden_dim = 32;
  o.n_hidden = 2;
  GFlowNetModel plain(16, 3, o);
  EXPECT_FALSE(plain.has_log_flow());
  const at::Tensor x = torch::rand({5, 16});
  EXPECT_FALSE(plain.forward(x, 0).log_flow.defined());
  EXPECT_THROW(plain.log_flow(x), std::logic_error);

  GFlowNetModel untied(16, 3, o, /*with_log_flow=*/true);
  EXPECT_TRUE(names(untied).count("logF_trunk.0.weight"));
  EXPECT_TRUE(names(untied).count("logF_head.weight"));
  int64_t n = 0;
  for (const auto& p : untied.parameters()) n += p.numel();
  EXPECT_EQ(n, (16 * 32 + 32 + 32 * 32 + 32 + 32 * 3 + 3) +
                   (16 * 32 + 32 + 32 * 32 + 32 + 32 * 2 + 2) +
                   (16 * 32 + 32 + 32 * 32 + 32 + 32 * 1 + 1) + 1);
  const PolicyOutputs u = untied.forward(x, 2);
  EXPECT_EQ(u.log_flow.sizes(), (at::IntArrayRef{5}));
  EXPECT_TRUE(at::allclose(u.log_flow, untied.log_flow(x)));

  o.tied = true;
  GFlowNetModel tied(16, 3, o, true);
  EXPECT_FALSE(names(tied).count("logF_trunk.0.weight"));
  EXPECT_TRUE(names(tied).count("logF_head.weight"));
  const PolicyOutputs t = tied.forward(x, 0);
  EXPECT_TRUE(at::allclose(t.log_flow, tied.log_flow(x)));
  EXPECT_TRUE(at::allclose(t.pf_logits, tied.pf_logits(x)));
  // The logF head trains the shared trunk.
  t.log_flow.sum().backward();
  const auto params = tied.named_parameters();
  EXPECT_TRUE(params["pf_trunk.0.weight"].grad().defined());
  EXPECT_FALSE(params["pf_head.weight"].grad().defined());
}

TEST(Estimators, RejectsBadOptions) {
  core::ModelOptions o;
  o.n_hidden = 0;
  EXPECT_THROW(GFlowNetModel(8, 3, o), std::invalid_argument);
  o.n_hidden = 2;
  o.hidden_dim = 0;
  EXPECT_THROW(GFlowNetModel(8, 3, o), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::core
