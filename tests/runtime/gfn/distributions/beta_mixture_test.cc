// The Beta mixture (runtime/gfn/distributions/beta_mixture.h) against python3-torch
// (beta_mixture_reference.py, run as a fixture: torch.distributions' log_prob, and its draws
// from the same seed), against the closed form of one component, and its draws against the
// mixture's first two moments.
#include "runtime/gfn/distributions/beta_mixture.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gfn::distributions {
namespace {

struct ReferenceCase {
  std::int64_t k = 0, b = 0, d = 0;
  std::map<std::string, at::Tensor> values;
};

std::vector<ReferenceCase> read_reference() {
  std::ifstream in(GFN_BETA_MIXTURE_REFERENCE);
  EXPECT_TRUE(in.good()) << "missing " << GFN_BETA_MIXTURE_REFERENCE;
  std::vector<ReferenceCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    if (name == "case") {
      cases.emplace_back();
      fields >> cases.back().k >> cases.back().b >> cases.back().d;
      continue;
    }
    std::vector<float> v;
    for (float x; fields >> x;) v.push_back(x);
    cases.back().values[name] = at::tensor(v, at::kFloat);
  }
  return cases;
}

TEST(BetaMixture, MatchesTorchDistributions) {
  const std::vector<ReferenceCase> cases = read_reference();
  ASSERT_EQ(cases.size(), 3u);
  for (const ReferenceCase& c : cases) {
    SCOPED_TRACE("K = " + std::to_string(c.k));
    auto params = [&](const char* name) { return c.values.at(name).view({c.b, c.d, c.k}); };
    const BetaMixture m(params("log_weights"), params("alpha"), params("beta"));
    const at::Tensor lp = m.log_prob(c.values.at("x").view({c.b, c.d}));
    const at::Tensor expected = c.values.at("log_prob").view({c.b, c.d});
    EXPECT_TRUE(at::allclose(lp, expected, 1e-5, 1e-4))
        << "max |diff| " << (lp - expected).abs().max().item<float>();
    // The same draws as torch.distributions from the same seed.
    at::Generator gen = at::detail::createCPUGenerator(1234);
    const at::Tensor s = m.sample(gen);
    EXPECT_TRUE(at::equal(s, c.values.at("samples").view({c.b, c.d})))
        << "max |diff| " << (s - c.values.at("samples").view({c.b, c.d})).abs().max().item<float>();
  }
}

TEST(BetaMixture, OneComponentIsTheBetaDensity) {
  const double a = 2.5, b = 0.7;
  const at::Tensor x = at::tensor({1e-4f, 0.1f, 0.5f, 0.93f, 0.999f});
  const std::int64_t n = x.size(0);
  const BetaMixture m(at::zeros({n, 1}), at::full({n, 1}, a, at::kFloat),
                      at::full({n, 1}, b, at::kFloat));
  const at::Tensor lp = m.log_prob(x);
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = x[i].item<double>();
    const double closed = (a - 1) * std::log(v) + (b - 1) * std::log1p(-v) + std::lgamma(a + b) -
                          std::lgamma(a) - std::lgamma(b);
    EXPECT_NEAR(lp[i].item<double>(), closed, 1e-5 * (1 + std::abs(closed))) << v;
  }
}

TEST(BetaMixture, FromRawMapsConcentrationsAndTemperature) {
  const at::Tensor logits = at::tensor({0.0f, 1.0f, -2.0f}).view({1, 3});
  const at::Tensor raw = at::tensor({-50.0f, 0.0f, 50.0f}).view({1, 3});
  const BetaMixture m = BetaMixture::from_raw(logits, raw, raw, {0.5, 10.5}, 2.0);
  EXPECT_TRUE(at::allclose(m.alpha(), at::tensor({0.5f, 5.5f, 10.5f}).view({1, 3})));
  EXPECT_TRUE(at::allclose(m.log_weights(), (logits / 2.0).log_softmax(-1)));
  EXPECT_THROW(BetaMixture::from_raw(logits, raw, raw, {0.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(BetaMixture::from_raw(logits, raw, raw, {2.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(BetaMixture::from_raw(logits, raw, raw, {0.1, 1.0}, 0.0), std::invalid_argument);
  EXPECT_THROW(BetaMixture(logits, raw, at::zeros({1, 2})), std::invalid_argument);
  EXPECT_THROW(BetaMixture(logits.to(at::kDouble), raw, raw), std::invalid_argument);
}

// E[X^p] of Beta(a, b) = prod_{r < p} (a + r) / (a + b + r).
double beta_moment(double a, double b, int p) {
  double m = 1;
  for (int r = 0; r < p; ++r) m *= (a + r) / (a + b + r);
  return m;
}

// The draws' mean and second moment agree with the mixture's within 5 standard errors
// (each estimated from the mixture's own moments: Var(X^p) = E[X^2p] - E[X^p]^2).
TEST(BetaMixture, DrawsHaveTheMixtureMoments) {
  const std::int64_t n = 200000;
  const std::vector<double> w = {0.2, 0.5, 0.3}, a = {0.3, 4.0, 40.0}, b = {0.8, 2.0, 10.0};
  const at::Tensor lw = at::tensor(std::vector<float>(w.begin(), w.end())).log();
  auto row = [&](const std::vector<double>& v) {
    return at::tensor(std::vector<float>(v.begin(), v.end())).expand({n, 3}).contiguous();
  };
  const BetaMixture m(lw.expand({n, 3}).contiguous(), row(a), row(b));
  at::Generator gen = at::detail::createCPUGenerator(42);
  const at::Tensor x = m.sample(gen).to(at::kDouble);
  ASSERT_EQ(x.sizes(), (std::vector<std::int64_t>{n}));
  EXPECT_TRUE((x.ge(0) & x.le(1)).all().item<bool>());
  for (int p : {1, 2}) {
    double mean = 0, second = 0;  // E[X^p], E[X^2p] of the mixture
    for (std::size_t k = 0; k < w.size(); ++k) {
      mean += w[k] * beta_moment(a[k], b[k], p);
      second += w[k] * beta_moment(a[k], b[k], 2 * p);
    }
    const double se = std::sqrt((second - mean * mean) / static_cast<double>(n));
    EXPECT_NEAR(x.pow(p).mean().item<double>(), mean, 5 * se) << "moment " << p;
  }
  // Same seed, same draws.
  at::Generator again = at::detail::createCPUGenerator(42);
  EXPECT_TRUE(at::equal(m.sample(again).to(at::kDouble), x));
}

}  // namespace
}  // namespace gfn::distributions
