// torchgfn's library-benchmark scenarios (configs/bench/torchgfn/): each configuration builds a
// model with the parameter count of the model torchgfn's runner builds for the scenario
// (benchmark/lib_runners/torchgfn_runner.py, get_n_params), the count its header comment states.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "roles/experiment/experiment.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::roles {
namespace {

// torchgfn's MLP(input, n_actions, 256, 2) for PF, PB's head on PF's trunk, and logZ:
// (input + 1) 256 + 257 x 256 trunk, 257 n_actions PF head, 257 (n_actions - 1) PB head, 1.
std::int64_t torchgfn_count(std::int64_t input, std::int64_t n_actions) {
  return (input + 1) * 256 + 257 * 256 + 257 * n_actions + 257 * (n_actions - 1) + 1;
}

TEST(TorchgfnBenchConfigs, ParameterCountsAreTorchgfns) {
  // Scenario -> (words per sequence, the identity preprocessor's width; actions L 2^k + 1).
  const std::vector<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>> scenarios = {
      {"tb_bitseq_small", {8, 17}}, {"tb_bitseq_medium", {4, 17}}};
  for (const auto& [scenario, shape] : scenarios) {
    SCOPED_TRACE(scenario);
    const std::string path =
        std::string(GFN_SOURCE_DIR) + "/configs/bench/torchgfn/" + scenario + ".yaml";
    const ExperimentConfig c = load_config(path);
    const std::unique_ptr<core::Environment> env = core::make_environment(c.env);
    const std::int64_t input = env->make_preprocessor(c.env.preprocessor)->output_dim();
    EXPECT_EQ(input, shape.first);
    EXPECT_EQ(env->n_actions(), shape.second);
    core::GFlowNetModel model(input, env->n_actions(), c.model);
    std::int64_t n = 0;
    for (const auto& p : model.parameters()) n += p.numel();
    const std::int64_t expected = torchgfn_count(shape.first, shape.second);
    EXPECT_EQ(n, expected);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find(fmt::format("logZ 1: {},{:03}.", expected / 1000, expected % 1000)),
              std::string::npos)
        << "the header comment states " << expected;
  }
}

}  // namespace
}  // namespace gfn::roles
