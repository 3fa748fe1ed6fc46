#include "runtime/gfn/fast/saved_outputs_evaluator.h"

#include <ATen/ATen.h>

#include <stdexcept>

#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/estimators.h"
#include "runtime/gfn/fast/gather_rows.h"
#include "runtime/gfn/fast/manual_backward.h"
#include "runtime/gfn/fast/saving_sampler.h"
#include "runtime/gfn/preprocessors.h"

namespace gfn::core {

StateEvaluator saved_outputs_evaluator(const Trajectories& trajs, GFlowNetModel& model,
                                       const Preprocessor& preprocessor, const Environment& env,
                                       MlpKernels kernels) {
  if (!trajs.has_saved_outputs()) {
    throw std::invalid_argument(
        "saved_outputs_evaluator: the trajectories have no saved outputs (sample them with "
        "sample_trajectories_saving_outputs)");
  }
  return [&trajs, &model, &preprocessor, &env, kernels](const at::Tensor& states, bool with_pb) {
    if (!(states.is_same(trajs.states) ||
          (states.sizes() == trajs.states.sizes() && states.equal(trajs.states)))) {
      throw std::logic_error(
          "saved_outputs_evaluator: called on other states than the batch's own rows");
    }
    StateOutputs s;
    s.pf_logits = trajs.saved_pf_logits;
    s.pb_logits = with_pb ? trajs.saved_pb_logits : at::Tensor();
    s.log_flow = trajs.saved_log_flow;
    const bool need_pb = with_pb && !s.pb_logits.defined();
    const bool need_flow = model.has_log_flow() && !s.log_flow.defined();
    if (need_pb || need_flow) {
      // Untied model: PB (and logF) trunks once on the distinct states, like model_evaluator.
      const UniqueStates u = env.unique(states);
      const at::Tensor x = preprocessor(u.states);
      if ((kernels.bf16 || kernels.row_parts > 1) && !model.tied() && !model.uniform_pb()) {
        // The same nets by the hand-written forward and backward, with bf16 GEMMs or their
        // rows split over threads (row_split.h).
        // Their per-transition rows by gather_rows: its backward is split over the threads.
        const PolicyOutputs o = pb_and_flow_manual_backward(model, x, kernels);
        if (need_pb) s.pb_logits = gather_rows(o.pb_logits, u.inverse, kernels.row_parts);
        if (need_flow) s.log_flow = gather_rows(o.log_flow, u.inverse, kernels.row_parts);
      } else {
        if (need_pb) s.pb_logits = model.pb_logits(x).index_select(0, u.inverse);
        if (need_flow) s.log_flow = model.log_flow(x).index_select(0, u.inverse);
      }
    }
    return s;
  };
}

SavedOutputsEvaluator::SavedOutputsEvaluator(GFlowNetModel& model, const Preprocessor& preprocessor,
                                             const Environment& env, MlpKernels kernels,
                                             bool fused_sampler)
    : model_(model),
      preprocessor_(preprocessor),
      env_(env),
      kernels_(kernels),
      fused_sampler_(fused_sampler),
      reference_(model, preprocessor, env) {}

Trajectories SavedOutputsEvaluator::sample(std::int64_t n, const SamplerOptions& options,
                                           at::Generator& generator) {
  if (n == 0) return reference_.sample(n, options, generator);
  // Room for a quarter more distinct rows than the last batch recorded (ForwardRecorder).
  const SavingPolicy policy =
      model_saving_policy(model_, preprocessor_, env_, kernels_, recorded_rows_ * 5 / 4);
  Trajectories out =
      sample_trajectories_saving_outputs(env_, policy, n, options, generator, fused_sampler_);
  recorded_rows_ = policy.recorded_rows();
  return out;
}

void SavedOutputsEvaluator::attach_outputs(Trajectories& part) {
  save_outputs(model_saving_policy(model_, preprocessor_, env_, kernels_), part);
}

LossValue SavedOutputsEvaluator::loss(const Loss& loss, const Trajectories& batch,
                                      const at::Tensor& log_z) {
  if (!batch.has_saved_outputs() || !loss.reuses_sampled_outputs()) {
    return reference_.loss(loss, batch, log_z);
  }
  return loss.evaluate(
      env_, batch, saved_outputs_evaluator(batch, model_, preprocessor_, env_, kernels_), log_z);
}

}  // namespace gfn::core
