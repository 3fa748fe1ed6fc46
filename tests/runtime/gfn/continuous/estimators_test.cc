// The continuous estimators (runtime/gfn/continuous/estimators.h): torchgfn's parameter
// counts for the box benchmarks, the tied / untied / fixed PB variants, and log F at s0.
#include "runtime/gfn/continuous/estimators.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/gfn/env/box.h"
#include "runtime/gfn/env/box_polar.h"
#include "runtime/gfn/env/box_polar_policies.h"
#include "runtime/gfn/env/box_policies.h"

namespace gfn::core {
namespace {

std::int64_t n_parameters(ContinuousModel& m) {
  std::int64_t n = 0;
  for (const at::Tensor& p : m.parameters()) n += p.numel();
  return n;
}

ContinuousModel box_model(const ContinuousModelOptions& o) {
  const Box box{BoxOptions{}};
  const BoxPolicyOptions po;  // 5 components: 31 outputs
  return ContinuousModel(box.dim(), BoxForwardPolicy(box, po).n_outputs(),
                         BoxBackwardPolicy(box, po).n_outputs(), o);
}

// torchgfn's TBGFlowNet on Box (benchmark/lib_runners/torchgfn_runner.py, hidden_dim 256,
// n_layers 2, 5 components): trunk 2*256+256 + 256*256+256, PF head 256*31+31, logZ 1, and
// the PB head 256*31+31 when learned on the tied trunk.
TEST(ContinuousModel, ParameterCountsOfTheBoxBenchmarks) {
  ContinuousModelOptions o;
  o.uniform_pb = true;
  ContinuousModel uniform = box_model(o);
  EXPECT_EQ(n_parameters(uniform), 74528);
  o.uniform_pb = false;
  ContinuousModel tied = box_model(o);
  EXPECT_EQ(n_parameters(tied), 82495);
  o.tied = false;
  ContinuousModel untied = box_model(o);
  EXPECT_EQ(n_parameters(untied), 82495 + 768 + 65792);
  o.with_log_flow = true;
  ContinuousModel with_flow = box_model(o);
  EXPECT_EQ(n_parameters(with_flow), 82495 + 768 + 65792 + 768 + 65792 + 257);
  std::set<std::string> names;
  for (const auto& item : with_flow.named_parameters()) names.insert(item.key().substr(0, 7));
  EXPECT_EQ(names, (std::set<std::string>{"logF_he", "logF_tr", "logZ", "pb_head", "pb_trun",
                                          "pf_head", "pf_trun"}));
}

ContinuousModel polar_model(const ContinuousModelOptions& base) {
  const BoxPolar box{BoxOptions{}};
  const BoxPolarForwardPolicy pf(box, {});  // K = 2, K0 = 4: 7 + 20 outputs
  ContinuousModelOptions o = base;
  o.hidden_dim = 128;
  o.n_hidden = 4;
  o.pf_constant_outputs = static_cast<int>(pf.constant_outputs());
  return ContinuousModel(box.dim(), pf.n_outputs(), BoxPolarBackwardPolicy(box, {}).n_outputs(), o);
}

// torchgfn's train_box.py estimators (hidden 128 x 4, K = 2, K0 = 4), counted with torchgfn:
// BoxPFMLP 50843 (PFs0 20 included), BoxPBMLP's last layer 774 (tied) or 50694 (untied),
// BoxStateFlowModule 50049 + logZ 1.
TEST(ContinuousModel, ParameterCountsOfTrainBoxPolar) {
  ContinuousModelOptions o;
  o.uniform_pb = true;
  ContinuousModel uniform = polar_model(o);
  EXPECT_EQ(n_parameters(uniform), 50843 + 1);
  o.uniform_pb = false;
  ContinuousModel tied = polar_model(o);
  EXPECT_EQ(n_parameters(tied), 50843 + 774 + 1);
  o.tied = false;
  o.with_log_flow = true;
  ContinuousModel untied = polar_model(o);
  EXPECT_EQ(n_parameters(untied), 50843 + 50694 + 50049 + 1);
}

// The constant outputs are one learned vector (zeros at first) on every row, after the head.
TEST(ContinuousModel, ConstantOutputsAreSharedByEveryRow) {
  ContinuousModelOptions o;
  o.hidden_dim = 16;
  o.pf_constant_outputs = 3;
  ContinuousModel m(2, 7, 5, o);
  at::NoGradGuard no_grad;
  m.named_parameters()["pf_constant"].copy_(at::tensor({1.5f, -2.0f, 0.25f}));
  const ContinuousOutputs out = m.forward(at::rand({4, 2}), 1);
  ASSERT_EQ(out.pf.sizes(), (at::IntArrayRef{4, 7}));
  EXPECT_TRUE(out.pf.narrow(1, 4, 3).eq(at::tensor({1.5f, -2.0f, 0.25f})).all().item<bool>());
  EXPECT_FALSE(
      out.pf.narrow(1, 0, 4).eq(out.pf.narrow(0, 0, 1).narrow(1, 0, 4)).all().item<bool>());
  EXPECT_TRUE(
      m.pf(at::zeros({2, 2})).narrow(1, 4, 3).equal(out.pf.narrow(1, 4, 3).narrow(0, 0, 2)));
  o.pf_constant_outputs = 7;
  EXPECT_THROW(ContinuousModel(2, 7, 5, o), std::invalid_argument);
}

TEST(ContinuousModel, OutputsOfEachVariant) {
  const at::Tensor x = at::rand({6, 2}) * 2 - 1;
  for (bool tied : {true, false}) {
    ContinuousModelOptions o;
    o.hidden_dim = 16;
    o.tied = tied;
    ContinuousModel m(2, 7, 5, o);
    const ContinuousOutputs out = m.forward(x, 2);
    EXPECT_EQ(out.pf.sizes(), (std::vector<std::int64_t>{6, 7}));
    EXPECT_EQ(out.pb.sizes(), (std::vector<std::int64_t>{4, 5}));
    EXPECT_TRUE(at::allclose(out.pf, m.pf(x)));
    // PB rows are row-wise: the outputs of rows 2.. alone.
    EXPECT_TRUE(at::allclose(out.pb, m.forward(x.narrow(0, 2, 4), 0).pb, 1e-6, 1e-6));
    EXPECT_THROW(m.forward(x, 7), std::invalid_argument);
    EXPECT_THROW(m.log_flow(x, at::zeros({6}, at::kBool)), std::logic_error);
  }
  ContinuousModelOptions o;
  o.hidden_dim = 16;
  o.uniform_pb = true;
  o.fixed_pb_output = 1.0;
  ContinuousModel m(2, 7, 5, o);
  EXPECT_TRUE(at::equal(m.forward(x, 1).pb, at::ones({5, 5})));
  EXPECT_THROW(ContinuousModel(2, 0, 5, o), std::invalid_argument);
  o.hidden_dim = 0;
  EXPECT_THROW(ContinuousModel(2, 7, 5, o), std::invalid_argument);
}

TEST(ContinuousModel, LogFlowAtS0IsLogZ) {
  ContinuousModelOptions o;
  o.hidden_dim = 16;
  o.with_log_flow = true;
  ContinuousModel m(2, 7, 5, o);
  {
    at::NoGradGuard no_grad;
    m.log_z().fill_(1.25);
  }
  const at::Tensor s = at::tensor({0.0f, 0.0f, 0.3f, 0.4f}).view({2, 2});
  const at::Tensor f = m.log_flow(s, at::tensor({1, 0}).to(at::kBool));
  EXPECT_FLOAT_EQ(f[0].item<float>(), 1.25f);
  f.sum().backward();
  EXPECT_FLOAT_EQ(m.log_z().grad().item<float>(), 1.0f);
}

}  // namespace
}  // namespace gfn::core
