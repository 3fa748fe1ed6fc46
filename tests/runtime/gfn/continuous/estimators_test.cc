// The continuous estimators (runtime/gfn/continuous/estimators.h): torchgfn's parameter
// counts for the box benchmarks, the tied / untied / fixed PB variants, and log F at s0.
#include "runtime/gfn/continuous/estimators.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "runtime/gfn/env/box.h"
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
