#include "runtime/output/torchgfn_export.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace gfn::output {
namespace {

TEST(TorchgfnExport, NamesFollowTorchgfnsGFlowNetStateDict) {
  EXPECT_EQ(torchgfn_name("pf_trunk.0.weight"), "pf.module.trunk.0.weight");
  EXPECT_EQ(torchgfn_name("pf_trunk.2.bias"), "pf.module.trunk.2.bias");
  EXPECT_EQ(torchgfn_name("pf_head.weight"), "pf.module.last_layer.weight");
  EXPECT_EQ(torchgfn_name("pb_trunk.0.bias"), "pb.module.trunk.0.bias");
  EXPECT_EQ(torchgfn_name("pb_head.bias"), "pb.module.last_layer.bias");
  EXPECT_EQ(torchgfn_name("logF_trunk.4.weight"), "logF.module.trunk.4.weight");
  EXPECT_EQ(torchgfn_name("logF_head.weight"), "logF.module.last_layer.weight");
  EXPECT_EQ(torchgfn_name("logZ"), "logZ");
  EXPECT_EQ(torchgfn_name("pf_noisy_head.weight_mu"), "");
}

TEST(TorchgfnExport, TiedTrunkIsListedUnderEveryModuleThatUsesIt) {
  const NamedTensors tied{{"pf_trunk.0.weight", at::ones({3, 2})},
                          {"pf_head.weight", at::ones({4, 3})},
                          {"pb_head.weight", at::ones({3, 3})},
                          {"logF_head.weight", at::ones({1, 3})},
                          {"logZ", at::zeros({})}};
  const auto out = torchgfn_state_dict(tied);
  std::vector<std::string> names;
  for (const auto& e : out) names.push_back(e.first);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "pf.module.trunk.0.weight", "pf.module.last_layer.weight",
                       "pb.module.last_layer.weight", "logF.module.last_layer.weight", "logZ",
                       "pb.module.trunk.0.weight", "logF.module.trunk.0.weight"}));
  EXPECT_TRUE(out[5].second.equal(tied[0].second));
  // Untied: nothing duplicated.
  const NamedTensors untied{{"pf_trunk.0.weight", at::ones({3, 2})},
                            {"pb_trunk.0.weight", at::zeros({3, 2})},
                            {"pb_head.weight", at::ones({3, 3})}};
  EXPECT_EQ(torchgfn_state_dict(untied).size(), 3u);
}

TEST(TorchgfnExport, CopiesAreDetachedAndNoisyLayersAreRefused) {
  auto w = at::ones({2, 2}).requires_grad_(true);
  const auto out = torchgfn_state_dict({{"pf_head.weight", w}});
  EXPECT_FALSE(out[0].second.requires_grad());
  w.detach().fill_(5.0);  // a copy, not a view of the trained parameter
  EXPECT_EQ(out[0].second.sum().item<float>(), 4.0f);
  EXPECT_THROW(torchgfn_state_dict({{"pf_noisy_head.weight_mu", at::ones({1})}}),
               std::invalid_argument);
}

TEST(TorchgfnExport, WritesADictThatPickleLoadReadsBack) {
  const auto path = (std::filesystem::temp_directory_path() / "gfn_export_test.pt").string();
  write_torch_dict(path, {{"logZ", at::full({}, 1.5)},
                          {"pf.module.last_layer.bias", at::arange(3, at::kFloat)}});
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  const auto dict = torch::pickle_load(bytes).toGenericDict();
  ASSERT_EQ(dict.size(), 2u);
  EXPECT_FLOAT_EQ(dict.at("logZ").toTensor().item<float>(), 1.5f);
  EXPECT_TRUE(dict.at("pf.module.last_layer.bias").toTensor().equal(at::arange(3, at::kFloat)));
  EXPECT_THROW(write_torch_dict("/proc/not/here.pt", {}), std::runtime_error);
}

}  // namespace
}  // namespace gfn::output
