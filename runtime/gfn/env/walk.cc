// The README's "Adding an environment" example, kept compiled and tested.
// Walk: a walk on {0, .., length-1} (env.height = length). States int64 [B, 1], s0 = 0.
// Forward action 0 moves one step right, action 1 exits (allowed everywhere); backward
// action 0 moves one step left. Reward R(x) = x + 1.
#include <ATen/ATen.h>

#include <stdexcept>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/env/walk_options.h"
#include "runtime/gfn/preprocessors.h"

namespace {

using gfn::core::Environment;

class Walk final : public Environment {
 public:
  explicit Walk(const gfn::core::WalkOptions& options) : length_(options.height) {
    if (length_ < 2) throw std::invalid_argument("env.height must be >= 2 for walk");
    all_ = at::arange(length_, at::kLong).view({-1, 1});
    const at::Tensor lr = log_reward(all_).to(at::kDouble);
    log_z_ = lr.logsumexp(0).item<double>();
    true_dist_ = (lr - log_z_).exp();
  }

  // Description.
  std::string name() const override { return "walk"; }
  std::int64_t state_dim() const override { return 1; }
  std::int64_t n_actions() const override { return 2; }  // right, exit
  bool every_state_terminates() const override { return true; }

  // Dynamics: whole batches, one call per step.
  at::Tensor initial_states(std::int64_t n) const override { return at::zeros({n, 1}, at::kLong); }
  at::Tensor forward_masks(const at::Tensor& s) const override {
    return at::cat({s.lt(length_ - 1), at::ones({s.size(0), 1}, at::kBool)}, 1);
  }
  at::Tensor backward_masks(const at::Tensor& s) const override { return s.gt(0); }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor&) const override { return s + 1; }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor&) const override {
    return s - 1;
  }
  void check_states(const at::Tensor& s, const char* who) const override {
    Environment::check_states(s, who);  // int64 [B, 1]
    if (s.numel() > 0 &&
        (s.min().item<std::int64_t>() < 0 || s.max().item<std::int64_t>() >= length_)) {
      throw std::invalid_argument(std::string("walk::") + who + ": position out of range");
    }
  }
  at::Tensor log_reward(const at::Tensor& s) const override {
    check_states(s, "log_reward");
    return (s.view({-1}) + 1).to(at::kFloat).log();  // float32 [B]
  }

  // Network input.
  std::unique_ptr<gfn::core::Preprocessor> make_preprocessor(
      gfn::core::PreprocessorKind kind) const override {
    if (kind == gfn::core::PreprocessorKind::kKHot) {
      return std::make_unique<gfn::core::KHotPreprocessor>(1, length_);
    }
    throw std::invalid_argument("env.preprocessor: walk supports \"khot\" only");
  }

  // Optional: enumeration, for exact L1 / JSD / logZ validation.
  bool enumerable() const override { return true; }
  std::int64_t n_states() const override { return length_; }
  const at::Tensor& all_states() const override { return all_; }  // topological order
  at::Tensor state_indices(const at::Tensor& s) const override { return s.view({-1}); }
  std::int64_t n_terminating_states() const override { return length_; }
  const at::Tensor& terminating_states() const override { return all_; }
  at::Tensor terminating_state_indices(const at::Tensor& s) const override { return s.view({-1}); }
  const at::Tensor& true_distribution() const override { return true_dist_; }
  double log_partition() const override { return log_z_; }

  // Optional: modes (here: the last position).
  std::int64_t n_modes() const override { return 1; }
  at::Tensor is_mode(const at::Tensor& s) const override { return s.view({-1}).eq(length_ - 1); }
  at::Tensor mode_hits(const at::Tensor& s) const override {
    return s.view({-1}).masked_select(is_mode(s));
  }

 private:
  std::int64_t length_;
  at::Tensor all_, true_dist_;
  double log_z_ = 0.0;
};

}  // namespace

// The YAML name is the identifier: env.name: walk
GFN_DEFINE_ENVIRONMENT(walk) {
  return std::make_unique<Walk>(options.get<gfn::core::WalkOptions>());
}
