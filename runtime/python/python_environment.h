#pragma once
// Environments and rewards written in Python, run by gfn-train's embedded CPython
// (python_interpreter.h; docs/environments.md "Python environments" documents the class member
// by member):
//
//   env: {name: py_grid, python: "hypergrid:HyperGrid", options: {ndim: 2, height: 8}}
//   env: {name: hypergrid, reward_python: "rewards:log_reward"}
//
// env.python names a class whose members follow torchgfn's DiscreteEnv (n_actions,
// state_shape, s0, step, backward_step, forward / backward masks, log_reward; optionally
// all_states, terminating_states, get_states_indices, get_terminating_states_indices,
// true_dist, log_partition, n_modes, is_mode, mode_hits) on plain tensors: states int64
// [B, state_dim], actions int64 [B]. It is built with env.options as keyword arguments (each
// value read as YAML: 8, 0.5, true, original) and wrapped as a core::Environment
// (environment.h) whose every batched member is one Python call on tensors shared without a
// copy. env.reward_python names a function states -> log R that replaces any environment's
// reward (core::with_log_reward, reward_model.h). Modules are found on env.python_path.
//
// Every rank imports the module itself (each builds its environments). A Python exception
// in a member becomes a std::runtime_error naming the key, the class and the member, with
// the traceback ("env.python 'hypergrid:HyperGrid': HyperGrid.step raised:\nTraceback ...");
// on a rank of a job it fails that rank, and the job stops as for any rank failure.
// Thread-safety: members are callable from any thread; each call holds the GIL (calls are
// serialised). Cost per member call: the GIL, one Python call and a torch.Tensor object per
// tensor argument and result (docs/performance.md "Python environments").

#include <memory>
#include <string>

#include "runtime/gfn/env/env_options.h"

namespace gfn::core {
class Environment;
}

namespace gfn::python {

/// Makes make_environment (runtime/gfn/env/registry.h) build env.python's environments and
/// env.reward_python's rewards with the functions below (core::set_python_support). Call once,
/// at the start of main, before any environment is built. The interpreter starts at the first
/// Python environment or reward, not here.
void install();

/// When env.python or env.reward_python is set: an empty env.python_path becomes the
/// directory of `config_file` (the working directory when it is ""), and every directory of
/// env.python_path absolute, so that config.yaml records where the modules were found.
/// Otherwise nothing.
void resolve_python_path(core::EnvOptions& env, const std::string& config_file);

/// The environment of env.python, built with env.options. Throws config::ConfigError naming
/// env.python for a module or class that does not load, a constructor that raises (its
/// traceback), a missing required member or one of the wrong type or shape.
std::unique_ptr<core::Environment> make_python_environment(const core::EnvOptions& options);

/// `inner` with log R from env.reward_python's function (core::with_log_reward). Throws
/// config::ConfigError naming env.reward_python when it does not load or fails on the probe
/// batch.
std::unique_ptr<core::Environment> with_python_reward(std::unique_ptr<core::Environment> inner,
                                                      const core::EnvOptions& options);

}  // namespace gfn::python
