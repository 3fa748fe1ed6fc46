#include "tools/gfn-bench-train/row_count.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Tensor.h>

#include <stdexcept>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/learner.h"
#include "runtime/gfn/sampler.h"

namespace gfn::bench {

RowCounts count_rows(core::Learner& learner, std::int64_t batch_size, double epsilon,
                     double temperature, int n_batches, std::uint64_t seed) {
  if (n_batches < 1 || batch_size < 1) {
    throw std::invalid_argument("count_rows: n_batches and batch_size must be >= 1");
  }
  const core::Environment& env = learner.env();
  const core::PolicyFunction policy =
      core::model_policy(learner.model(), learner.preprocessor(), env);
  std::int64_t sample_rows = 0, calls = 0, loss_rows = 0, transitions = 0;
  const core::PolicyFunction counting = [&](const at::Tensor& states) {
    sample_rows += env.unique(states).states.size(0);
    ++calls;
    return policy(states);
  };
  core::SamplerOptions options;
  options.epsilon = epsilon;
  options.temperature = temperature;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  for (int i = 0; i < n_batches; ++i) {
    const core::Trajectories t = core::sample_trajectories(env, counting, batch_size, options, gen);
    loss_rows += env.unique(t.states).states.size(0);
    transitions += t.n_transitions();
  }
  const double n = n_batches;
  if (learner.plan().evaluator == core::EvaluatorKind::kStateTable) {
    return RowCounts{0.0, 0.0, static_cast<double>(env.n_states()), transitions / n};
  }
  return RowCounts{sample_rows / n, calls / n, loss_rows / n, transitions / n};
}

}  // namespace gfn::bench
