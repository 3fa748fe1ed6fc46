#include "runtime/gfn/env/reward_model.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <torch/script.h>

#include <cmath>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {
namespace {

/// The path as error messages print it: absolute and normalised (as the plugin loader's),
/// whatever the working directory it was given relative to.
std::string shown(const std::string& path) {
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
  return ec ? path : absolute;
}

constexpr std::int64_t kChunk = 65536;  // states per module call when enumerating

/// The gist of an error of LibTorch: a c10::Error's message without its backtrace (first
/// line), or the last line of a TorchScript interpreter's error (after its traceback).
std::string brief(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    const std::string text = c10_error->what_without_backtrace();
    return text.substr(0, text.find('\n'));
  }
  std::string text = e.what();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.substr(text.rfind('\n') + 1);
}

class RewardModelEnvironment final : public Environment {
 public:
  RewardModelEnvironment(std::unique_ptr<Environment> inner, LogRewardFunction log_reward,
                         std::string label)
      : inner_(std::move(inner)), label_(std::move(label)), log_reward_(std::move(log_reward)) {
    try {
      probe();
    } catch (const std::runtime_error& e) {
      throw config::ConfigError(e.what());
    }
  }

  std::string name() const override { return inner_->name(); }
  std::int64_t state_dim() const override { return inner_->state_dim(); }
  std::int64_t n_actions() const override { return inner_->n_actions(); }
  bool every_state_terminates() const override { return inner_->every_state_terminates(); }
  EnvironmentDescription describe() const override { return inner_->describe(); }
  at::Tensor initial_states(std::int64_t n) const override { return inner_->initial_states(n); }
  at::Tensor forward_masks(const at::Tensor& s) const override { return inner_->forward_masks(s); }
  at::Tensor backward_masks(const at::Tensor& s) const override {
    return inner_->backward_masks(s);
  }
  at::Tensor step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return inner_->step_unchecked(s, a);
  }
  at::Tensor backward_step_unchecked(const at::Tensor& s, const at::Tensor& a) const override {
    return inner_->backward_step_unchecked(s, a);
  }
  void check_states(const at::Tensor& s, const char* who) const override {
    inner_->check_states(s, who);
  }
  at::Tensor log_reward(const at::Tensor& states) const override {
    check_states(states, "log_reward");
    return run(states, /*check_values=*/true);
  }
  std::unique_ptr<Preprocessor> make_preprocessor(PreprocessorKind kind) const override {
    return inner_->make_preprocessor(kind);
  }
  UniqueStates unique(const at::Tensor& s) const override { return inner_->unique(s); }
  const RowDynamics* row_dynamics() const override { return inner_->row_dynamics(); }
  std::optional<at::Tensor> test_set(std::int64_t per_mode, std::uint64_t seed) const override {
    return inner_->test_set(per_mode, seed);
  }

  bool enumerable() const override { return inner_->enumerable(); }
  std::int64_t n_states() const override { return inner_->n_states(); }
  const at::Tensor& all_states() const override { return inner_->all_states(); }
  at::Tensor state_indices(const at::Tensor& s) const override { return inner_->state_indices(s); }
  std::int64_t n_terminating_states() const override { return inner_->n_terminating_states(); }
  const at::Tensor& terminating_states() const override { return inner_->terminating_states(); }
  at::Tensor terminating_state_indices(const at::Tensor& s) const override {
    return inner_->terminating_state_indices(s);
  }
  const at::Tensor& true_distribution() const override {
    if (!enumerable()) not_enumerable("true_distribution");
    std::call_once(rewards_once_, [this] { enumerate_rewards(); });
    return true_dist_;
  }
  double log_partition() const override {
    if (!enumerable()) not_enumerable("log_partition");
    std::call_once(rewards_once_, [this] { enumerate_rewards(); });
    return log_z_;
  }

  std::int64_t n_modes() const override { return inner_->n_modes(); }
  at::Tensor is_mode(const at::Tensor& s) const override { return inner_->is_mode(s); }
  at::Tensor mode_hits(const at::Tensor& s) const override { return inner_->mode_hits(s); }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw std::runtime_error(fmt::format("{}: {}", label_, problem));
  }

  /// log R of `states` (int64 [B, state_dim]) as float32 [B]: one call of the function.
  at::Tensor run(const at::Tensor& states, bool check_values) const {
    at::Tensor log_r;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      at::NoGradGuard no_grad;
      log_r = log_reward_(states);
    }
    if (!log_r.defined() || !at::isFloatingType(log_r.scalar_type()) || log_r.dim() != 1 ||
        log_r.size(0) != states.size(0)) {
      if (!log_r.defined()) fail("it must return a tensor, got an undefined one");
      fail(fmt::format("it must return log R, a floating tensor [{}], got {} {}", states.size(0),
                       std::string(c10::toString(log_r.scalar_type())), shape_string(log_r)));
    }
    const at::Tensor out32 = log_r.to(at::kFloat).contiguous();
    if (check_values &&
        (at::isnan(out32).any().item<bool>() || at::isposinf(out32).any().item<bool>())) {
      fail("log R must be finite or -inf, got NaN or +inf");
    }
    return out32;
  }

  /// The module on a few states: the output's type and shape, before any training.
  void probe() const {
    const at::Tensor states = inner_->enumerable()
                                  ? inner_->terminating_states().narrow(
                                        0, 0, std::min<std::int64_t>(4, n_terminating_states()))
                                  : inner_->initial_states(2);
    run(states, inner_->enumerable());
  }

  /// R(x) / Z and log Z over the terminating states, from the module: once, on first use
  /// (exact validation), so trainers without validation, managers and gfn-train's start-up
  /// check never pay it.
  void enumerate_rewards() const {
    const at::Tensor& term = inner_->terminating_states();
    std::vector<at::Tensor> parts;
    for (std::int64_t b = 0; b < term.size(0); b += kChunk) {
      parts.push_back(run(term.narrow(0, b, std::min(kChunk, term.size(0) - b)), true));
    }
    const at::Tensor log_r = at::cat(parts).to(at::kDouble);
    log_z_ = log_r.logsumexp(0).item<double>();
    if (!std::isfinite(log_z_)) fail("R(x) = 0 for every terminating state: log Z is -inf");
    true_dist_ = (log_r - log_z_).exp();
  }

  std::unique_ptr<Environment> inner_;
  std::string label_;             // the source, in messages
  LogRewardFunction log_reward_;  // serialised by mutex_
  mutable std::mutex mutex_;
  mutable std::once_flag rewards_once_;
  mutable at::Tensor true_dist_;
  mutable double log_z_ = 0.0;
};

torch::jit::Module load_module(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw config::ConfigError(fmt::format("env.reward_model '{}': no such file", shown(path)));
  }
  torch::jit::Module module;
  try {
    module = torch::jit::load(path);
  } catch (const std::exception& e) {
    throw config::ConfigError(
        fmt::format("env.reward_model '{}': not a TorchScript module saved with torch.jit.save: {}",
                    shown(path), brief(e)));
  }
  return module;
}

}  // namespace

std::unique_ptr<Environment> with_log_reward(std::unique_ptr<Environment> inner,
                                             LogRewardFunction log_reward, std::string label) {
  return std::make_unique<RewardModelEnvironment>(std::move(inner), std::move(log_reward),
                                                  std::move(label));
}

std::unique_ptr<Environment> with_reward_model(std::unique_ptr<Environment> inner,
                                               const std::string& path) {
  // forward() is not const: the module is shared by the closure, its calls serialised by the
  // wrapper's mutex.
  auto module = std::make_shared<torch::jit::Module>(load_module(path));
  module->eval();
  const std::string label = fmt::format("env.reward_model '{}'", shown(path));
  LogRewardFunction forward = [module, label](const at::Tensor& states) {
    c10::IValue out;
    try {
      out = module->forward({states});
    } catch (const std::exception& e) {  // c10::Error, torch::jit::JITException
      throw std::runtime_error(fmt::format("{}: forward failed on a batch of states int64 {}: {}",
                                           label, shape_string(states), brief(e)));
    }
    if (!out.isTensor()) {
      throw std::runtime_error(
          fmt::format("{}: forward must return a tensor, got {}", label, out.tagKind()));
    }
    return out.toTensor();
  };
  return with_log_reward(std::move(inner), std::move(forward), label);
}

}  // namespace gfn::core
