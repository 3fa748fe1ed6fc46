#include "runtime/gfn/fast/saving_sampler.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/row_dynamics.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/forward_recorder.h"
#include "runtime/gfn/fast/fused_sampler.h"
#include "runtime/gfn/fast/gather_rows.h"
#include "runtime/gfn/fast/plain_loops.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {

SavingPolicy model_saving_policy(GFlowNetModel& model, const Preprocessor& preprocessor,
                                 const Environment& env, MlpKernels kernels,
                                 std::int64_t capacity_hint) {
  auto recorder = std::make_shared<ForwardRecorder>(model, kernels, capacity_hint);
  SavingPolicy policy;
  policy.distinct_step = [recorder, &preprocessor](const at::Tensor& distinct_states,
                                                   const ForwardRecorder::RowsComputed& computed) {
    PolicyOutputs out = recorder->record(preprocessor(distinct_states), computed);
    return SavedPolicyStep{std::move(out.pf_logits), std::move(out.pb_logits),
                           std::move(out.log_flow), at::Tensor()};
  };
  policy.step = [distinct_step = policy.distinct_step, &env](const at::Tensor& states) {
    const UniqueStates u = env.unique(states);
    SavedPolicyStep s = distinct_step(u.states, {});
    s.inverse = u.inverse;
    return s;
  };
  policy.threads = kernels.row_parts;
  policy.recorded_rows = [recorder]() { return recorder->rows(); };
  policy.finish = [recorder]() {
    PolicyOutputs out = recorder->outputs();
    return SavedPolicyStep{std::move(out.pf_logits), std::move(out.pb_logits),
                           std::move(out.log_flow), at::Tensor()};
  };
  return policy;
}

namespace {

void check_outputs(const SavedPolicyStep& s, std::int64_t m, std::int64_t n_actions,
                   const char* who) {
  const bool ok = s.pf_logits.defined() && s.pf_logits.dim() == 2 && s.pf_logits.size(0) == m &&
                  s.pf_logits.size(1) == n_actions &&
                  (!s.pb_logits.defined() || (s.pb_logits.dim() == 2 && s.pb_logits.size(0) == m &&
                                              s.pb_logits.size(1) == n_actions - 1)) &&
                  (!s.log_flow.defined() || (s.log_flow.dim() == 1 && s.log_flow.size(0) == m));
  if (!ok) {
    throw std::invalid_argument(
        std::string(who) + ": the saving policy must return pf_logits [" + std::to_string(m) +
        ", " + std::to_string(n_actions) + "] and optionally pb_logits [" + std::to_string(m) +
        ", " + std::to_string(n_actions - 1) + "], log_flow [" + std::to_string(m) + "]");
  }
}

// Per-row saved outputs: the finished (differentiable) outputs of all distinct rows,
// gathered with ONE index_select per head (gather_rows: its backward split over the policy's
// threads).
void gather_saved(const SavedPolicyStep& all, const at::Tensor& rows, int threads,
                  Trajectories& out) {
  out.saved_pf_logits = gather_rows(all.pf_logits, rows, threads);
  if (all.pb_logits.defined()) out.saved_pb_logits = gather_rows(all.pb_logits, rows, threads);
  if (all.log_flow.defined()) out.saved_log_flow = gather_rows(all.log_flow, rows, threads);
}

// The fused sampler's loop (fused_sampler.h) with the policy's distinct_step; the saved
// outputs gathered as in the reference loop below.
Trajectories sample_fused_saving_outputs(const Environment& env, const RowDynamics& dynamics,
                                         const SavingPolicy& policy, std::int64_t n,
                                         const SamplerOptions& options, at::Generator& generator) {
  const char* who = "sample_trajectories_saving_outputs";
  const std::int64_t n_actions = env.n_actions();
  std::int64_t recorded = 0;
  const DistinctPolicy per_step = [&](const at::Tensor& distinct_states, const LogitsReady& ready) {
    const SavedPolicyStep s = policy.distinct_step(
        distinct_states, [&](RowRange rows, const PolicyOutputs& o) { ready(rows, o.pf_logits); });
    check_outputs(s, distinct_states.size(0), n_actions, who);
    recorded += distinct_states.size(0);
    return s.pf_logits.detach();
  };
  std::vector<std::int64_t> rows;
  Trajectories out = sample_trajectories_fused(env, dynamics, per_step, n, options, generator,
                                               &rows, policy.threads);
  if (n > 0) {
    at::AutoGradMode grad(true);
    const SavedPolicyStep all = policy.finish();
    check_outputs(all, recorded, n_actions, who);
    gather_saved(all, long_tensor(rows), policy.threads, out);
  }
  return out;
}

}  // namespace

Trajectories sample_trajectories_saving_outputs(const Environment& env, const SavingPolicy& policy,
                                                std::int64_t n, const SamplerOptions& options,
                                                at::Generator& generator, bool fused) {
  const char* who = "sample_trajectories_saving_outputs";
  if (!options.record_transitions) {
    throw std::invalid_argument(std::string(who) + ": needs options.record_transitions = true");
  }
  if (fused && env.row_dynamics() != nullptr && policy.distinct_step) {
    return sample_fused_saving_outputs(env, *env.row_dynamics(), policy, n, options, generator);
  }
  const std::int64_t n_actions = env.n_actions();
  std::vector<at::Tensor> rows;  // per step: the distinct-row index of each running row
  std::int64_t offset = 0;
  const PolicyFunction per_step = [&](const at::Tensor& states) {
    const SavedPolicyStep s = policy.step(states);
    const std::int64_t m = s.pf_logits.defined() ? s.pf_logits.size(0) : -1;
    check_outputs(s, m, n_actions, who);
    if (!s.inverse.defined() || s.inverse.dim() != 1 || s.inverse.size(0) != states.size(0)) {
      throw std::invalid_argument(std::string(who) + ": the saving policy must return inverse [" +
                                  std::to_string(states.size(0)) + "]");
    }
    rows.push_back(s.inverse + offset);
    offset += m;
    return s.pf_logits.detach().index_select(0, s.inverse);
  };
  Trajectories out = sample_trajectories(env, per_step, n, options, generator);
  if (n > 0) {
    at::AutoGradMode grad(true);
    const SavedPolicyStep all = policy.finish();
    check_outputs(all, offset, n_actions, who);
    gather_saved(all, at::cat(rows), policy.threads, out);
  }
  return out;
}

void save_outputs(const SavingPolicy& policy, Trajectories& trajs) {
  if (trajs.n_trajectories > 0 && !trajs.states.defined()) {
    throw std::invalid_argument("save_outputs: trajectories without recorded transitions");
  }
  trajs.clear_saved_outputs();
  if (trajs.n_trajectories == 0) return;
  SavedPolicyStep s;
  {
    at::NoGradGuard no_grad;
    s = policy.step(trajs.states);
  }
  const std::int64_t m = s.pf_logits.defined() ? s.pf_logits.size(0) : -1;
  const std::int64_t a = s.pf_logits.defined() ? s.pf_logits.size(1) : -1;
  check_outputs(s, m, a, "save_outputs");
  at::AutoGradMode grad(true);
  const SavedPolicyStep all = policy.finish();
  check_outputs(all, m, a, "save_outputs");
  gather_saved(all, s.inverse, policy.threads, trajs);
}

}  // namespace gfn::core
