// The polar Box policies (runtime/gfn/env/box_polar_policies.h) against torchgfn's own
// box_polar_utils.py: log_prob of fixed states, raw outputs and actions equal to torchgfn's
// (forward with the s0 quarter disk, learned and uniform backward), and the samplers' support
// and moments against 20000 torchgfn draws per state. The fixture box_polar_torchgfn.txt is
// written by torchgfn_box_polar.py (its docstring says how); the temperature's meaning.
#include "runtime/gfn/env/box_polar_policies.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "runtime/gfn/env/box_polar.h"

namespace gfn::core {
namespace {

using Fixture = std::map<std::string, at::Tensor>;

const Fixture& fixture() {
  static const Fixture blocks = [] {
    Fixture out;
    std::ifstream in(GFN_BOX_POLAR_FIXTURE);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      std::string name;
      std::int64_t rows = 0, cols = 0;
      fields >> name >> rows >> cols;
      std::vector<float> values;
      std::string v;
      while (fields >> v) values.push_back(std::stof(v));  // "nan" too
      out[name] = at::tensor(values, at::kFloat).view({rows, cols});
    }
    return out;
  }();
  return blocks;
}

const at::Tensor& block(const std::string& name) {
  const auto it = fixture().find(name);
  if (it == fixture().end()) throw std::runtime_error("fixture block missing: " + name);
  return it->second;
}

const BoxPolar& box() {
  static const BoxPolar env{[] {
    BoxOptions o;
    o.delta = 0.25;  // the fixture's: train_box.py's delta and epsilon 1e-10
    return o;
  }()};
  return env;
}

void expect_close(const at::Tensor& ours, const at::Tensor& theirs, const char* what) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
  for (std::int64_t i = 0; i < ours.size(0); ++i) {
    const double a = ours[i].item<double>(), b = theirs[i].item<double>();
    EXPECT_NEAR(a, b, 1e-5 * (1 + std::abs(b))) << what << " row " << i;
  }
}

TEST(BoxPolarForwardPolicy, LogProbEqualsTorchgfn) {
  const BoxPolarForwardPolicy pf(box(), {});
  const at::Tensor is_exit = block("pf_is_exit").squeeze(1).gt(0.5);
  ASSERT_TRUE(is_exit.any().item<bool>() && is_exit.logical_not().any().item<bool>());
  const at::Tensor lp =
      pf.log_prob(block("pf_states"), block("pf_outputs"), {block("pf_actions"), is_exit}, 1.0);
  expect_close(lp, block("pf_log_prob").squeeze(1), "log PF");
}

TEST(BoxPolarBackwardPolicy, LogProbEqualsTorchgfn) {
  const BoxPolarBackwardPolicy pb(box(), {});
  const at::Tensor& s = block("pb_states");
  const at::Tensor no_exit = at::zeros({s.size(0)}, at::kBool);
  expect_close(pb.log_prob(s, block("pb_outputs"), {block("pb_actions"), no_exit}, 1.0),
               block("pb_log_prob").squeeze(1), "log PB");
  BoxPolarPolicyOptions uniform;
  uniform.n_components = 1;
  uniform.skip_normalization = true;
  const BoxPolarBackwardPolicy pbu(box(), uniform);
  expect_close(
      pbu.log_prob(block("pbu_states"), block("pbu_outputs"), {block("pbu_actions"), no_exit}, 1.0),
      block("pbu_log_prob").squeeze(1), "log PB uniform");
}

// Per state: the moves' mean and standard deviation per coordinate and the exit frequency of
// n draws of `policy` against torchgfn's 20000, within 5 standard errors (seeded).
void expect_moments_match(const ContinuousPolicy& policy, const std::string& prefix, bool forward) {
  constexpr std::int64_t kDraws = 20000, kTheirs = 20000;
  const at::Tensor& states = block(prefix + "_states");
  const at::Tensor& outputs = block(prefix + "_outputs");
  at::Generator gen = at::detail::createCPUGenerator(11);
  for (std::int64_t row = 0; row < states.size(0); ++row) {
    const at::Tensor s = states.narrow(0, row, 1).expand({kDraws, 2}).contiguous();
    const at::Tensor out = outputs.narrow(0, row, 1).expand({kDraws, -1}).contiguous();
    const ContinuousActions a = policy.sample(s, out, 1.0, gen);
    // Support: every draw is a valid action with a finite log-density.
    const at::Tensor valid =
        forward ? at::where(a.is_exit, box().can_exit(s), box().forward_valid(s, a.increments))
                : box().backward_valid(s, a.increments);
    EXPECT_TRUE(valid.all().item<bool>()) << prefix << " row " << row;
    EXPECT_TRUE(policy.log_prob(s, out, a, 1.0).isfinite().all().item<bool>())
        << prefix << " row " << row;
    if (forward) {
      const double p = a.is_exit.to(at::kDouble).mean().item<double>();
      const double q = block("mom_pf_exit")[row][0].item<double>();
      const double se = std::sqrt(q * (1 - q) * (1.0 / kDraws + 1.0 / kTheirs)) + 1e-4;
      EXPECT_NEAR(p, q, 5 * se) << "exit frequency, row " << row;
    }
    const at::Tensor moves = a.increments.index_select(0, at::nonzero(~a.is_exit).squeeze(1));
    if (moves.size(0) < 100) continue;
    const at::Tensor mean = moves.to(at::kDouble).mean(0), sd = moves.to(at::kDouble).std(0);
    for (std::int64_t i = 0; i < 2; ++i) {
      const double m = block("mom_" + prefix + "_mean")[row][i].item<double>();
      const double d = block("mom_" + prefix + "_std")[row][i].item<double>();
      const double se = d * std::sqrt(2.0 / static_cast<double>(moves.size(0))) + 1e-5;
      EXPECT_NEAR(mean[i].item<double>(), m, 5 * se) << prefix << " mean, row " << row;
      EXPECT_NEAR(sd[i].item<double>(), d, 5 * se + 0.02 * d) << prefix << " std, row " << row;
    }
  }
}

TEST(BoxPolarForwardPolicy, SamplesMatchTorchgfnMoments) {
  expect_moments_match(BoxPolarForwardPolicy(box(), {}), "pf", true);
}

TEST(BoxPolarBackwardPolicy, SamplesMatchTorchgfnMoments) {
  expect_moments_match(BoxPolarBackwardPolicy(box(), {}), "pb", false);
}

// T divides the exit logit and the mixture logits, nothing else.
TEST(BoxPolarForwardPolicy, TemperatureScalesTheLogits) {
  const BoxPolarForwardPolicy pf(box(), {});
  const at::Tensor& out = block("pf_outputs");
  at::Tensor scaled = out.clone();
  scaled.narrow(1, 0, 3).div_(2.0);  // exit logit, K = 2 mixture logits
  scaled.narrow(1, 7, 4).div_(2.0);  // the s0 mixture logits (K0 = 4)
  const ContinuousActions a{block("pf_actions"), block("pf_is_exit").squeeze(1).gt(0.5)};
  const at::Tensor& s = block("pf_states");
  EXPECT_TRUE(at::allclose(pf.log_prob(s, out, a, 2.0), pf.log_prob(s, scaled, a, 1.0)));
  EXPECT_FALSE(at::allclose(pf.log_prob(s, out, a, 2.0), pf.log_prob(s, out, a, 1.0)));
}

}  // namespace
}  // namespace gfn::core
