#pragma once
// Setting an agent's exploration (Agent::set_exploration, runtime/gfn/agent.h; the spawn
// policies' random strategies): the one rule both learners apply. Pure; thread-safe.

namespace gfn::core {

struct Exploration;
struct ModelOptions;
struct TrainOptions;

/// Writes e.epsilon and e.temperature into `train` and e.noisy_std_init into `model` after
/// checking them against the train: / model: rules (config::check_values); throws
/// std::invalid_argument naming the key, leaving both unchanged, for a value they refuse.
void apply_exploration(const Exploration& e, TrainOptions& train, ModelOptions& model);

}  // namespace gfn::core
