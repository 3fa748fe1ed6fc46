#pragma once
// TorchScript reward models (`env.reward_model: path.pt`; docs/environments.md "Reward
// models"): log R of a batch of terminating states from a module saved in Python with
// torch.jit.save, for any environment (built-in or plugin). The usual case in sequence or
// molecule design: the reward is a proxy network trained on data.
//
// The module's forward takes the states as they are, int64 [B, state_dim] (the environment's
// representation, environment.h), and returns log R, a floating tensor [B] whose entries are
// finite or -inf (R = 0); it is called once per batch (a trainer's sampled batch, a
// validation batch), under no_grad, and its result is converted to float32. Everything else
// (states, masks, preprocessors, enumeration, modes) is the wrapped environment's; an
// enumerable environment's true distribution and log Z are recomputed from the module (in
// batches of 65,536 states) on their first use. The modes stay the environment's
// definition (e.g. BitSequence's target set), and so does the test set of validation's
// Spearman metric (test_set()); mode_probability() is unknown (nullopt).
// Buffer managers score the log R the trainers computed with the module.
//
// Format: Debian's python3-torch and the LibTorch this program links are the same release
// (1.13.1), so torch.jit.save's archives load here; the test exports its modules with it.
// Thread-safety: the module is run under a mutex (const members stay callable from any
// thread). Errors: std::runtime_error naming the file for a module that fails or returns
// something else than described above.

#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <string>

namespace gfn::core {

class Environment;

/// log R of a batch of terminating states int64 [B, state_dim]: a floating tensor [B] whose
/// entries are finite or -inf. Throws std::runtime_error with a complete message (naming its
/// source) when it fails.
using LogRewardFunction = std::function<at::Tensor(const at::Tensor& states)>;

/// `inner` with log R from `log_reward`, which is called as the module above is (once per
/// batch, serialised by a mutex, under no_grad; its result checked and converted to float32;
/// an enumerable environment's R / Z and log Z recomputed from it on first use). `label` names
/// the source in messages ("env.reward_python 'rewards:log_r'"). Checked on a probe batch:
/// throws config::ConfigError "<label>: ..." when it fails or returns something else than a
/// floating tensor [B]. with_reward_model and env.reward_python (runtime/python/) use it.
std::unique_ptr<Environment> with_log_reward(std::unique_ptr<Environment> inner,
                                             LogRewardFunction log_reward, std::string label);

/// `inner` with log R from the TorchScript module at `path` (loaded once, checked on a probe
/// batch). Throws config::ConfigError naming env.reward_model and the file when the file is
/// missing, is not a TorchScript archive, or its module does not map a batch of states to a
/// floating tensor [B].
std::unique_ptr<Environment> with_reward_model(std::unique_ptr<Environment> inner,
                                               const std::string& path);

}  // namespace gfn::core
