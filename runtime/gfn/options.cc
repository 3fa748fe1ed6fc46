#include "runtime/gfn/options.h"

#include <string>

#include "runtime/config/fields.h"

namespace gfn::core {
namespace {

// train.loss's documentation: every loss of loss_kind.h with its description, "The loss:
// tb: Trajectory Balance (torchgfn TBGFlowNet); zvar: ...".
std::string loss_doc() {
  std::string out = "The loss: ";
  for (const auto& [kind, name] : kLossKindNames) {
    if (kind != kLossKindNames[0].value) out += "; ";
    out += std::string(name) + ": " + loss_description(kind);
  }
  return out + ".";
}

}  // namespace

const config::Fields<ModelOptions>& model_fields() {
  using M = ModelOptions;
  static const auto fields =
      config::Fields<M>()
          .add("hidden_dim", &M::hidden_dim, "Width of the MLPs' hidden layers.",
               config::at_least(1))
          .add("n_hidden", &M::n_hidden, "Hidden layers of each MLP (PF, PB, logF).",
               config::at_least(1))
          .add("tied", &M::tied,
               "PF and PB (and logF) share one trunk (box: PB's head on PF's trunk; its log F "
               "network is never tied).")
          .add("uniform_pb", &M::uniform_pb,
               "A fixed uniform backward policy instead of a learned PB (box: torchgfn's "
               "fixed UniformModule policy, runtime/gfn/env/box_policies.h).")
          .add("n_noisy_layers", &M::n_noisy_layers,
               "NoisyNet exploration (Fortunato et al. 2018): the last n Linear layers of PF "
               "(output head first, never the input layer; n <= model.n_hidden) use factorised "
               "Gaussian noise, redrawn once per iteration; 0: off.",
               config::at_least(0))
          .add("noisy_std_init", &M::noisy_std_init,
               "NoisyNet sigma_0: sigma_w = sigma_0 / sqrt(in), sigma_b = sigma_0 / sqrt(out).",
               config::positive())
          .add("init_from", &M::init_from,
               "A state dict under torchgfn's names (a model_state_dict.pt of output.export, or "
               "a torchgfn GFlowNet's torch.save(dict(gflownet.state_dict()))) the estimators "
               "start from instead of a fresh initialisation; \"\": off.");
  return fields;
}

const config::Fields<TrainOptions>& train_fields() {
  using T = TrainOptions;
  static const auto fields =
      config::Fields<T>()
          .add("loss", &T::loss, loss_doc(), config::AsInvalid{})
          .add("subtb_weighting", &T::subtb_weighting,
               "subtb: how sub-trajectories are weighted (torchgfn SubTBGFlowNet; "
               "runtime/gfn/loss_kind.h documents each).",
               config::AsInvalid{})
          .add("subtb_lambda", &T::subtb_lambda,
               "subtb: sub-trajectories of length l weigh lambda^(l-1).", config::positive())
          .add("fm_alpha", &T::fm_alpha,
               "fm: weight of the terminating-state reward-matching term.", config::non_negative())
          .add("batch_size", &T::batch_size,
               "Trajectories per iteration over all trainers (each samples its share).",
               config::positive(), {"trajectories"})
          .add("n_trajectories", &T::n_trajectories,
               "The budget: iterations = ceil(n_trajectories / batch_size), unless "
               "train.n_iterations > 0.",
               config::positive(), {"trajectories", true})
          .add("n_iterations", &T::n_iterations,
               "Iterations to run when > 0 (then train.n_trajectories is ignored); 0: from "
               "the budget.",
               config::at_least(std::int64_t{0}), {"iterations"})
          .add("lr", &T::lr, "Adam learning rate of PF / PB / logF; 0 freezes them.",
               config::non_negative())
          .add("lr_logz", &T::lr_logz, "Adam learning rate of logZ; 0 keeps its initial value.",
               config::non_negative())
          .add("lr_logf", &T::lr_logf,
               "Adam learning rate of the log F network (db, subtb, fm; parameters logF*); 0: "
               "train.lr (torchgfn's train_box.py lr_F: 1e-2).",
               config::non_negative())
          .add("gradient_clamp", &T::gradient_clamp,
               "> 0: gradients are clamped element-wise to [-c, c] and NaN set to 0 before the "
               "optimizer step (torchgfn's train_box.py: 10); 0: off. Continuous environments "
               "only.",
               config::non_negative())
          .add("gradient_clamp_log_z", &T::gradient_clamp_log_z,
               "With gradient_clamp > 0: true clamps logZ's gradient as well (torchgfn's "
               "train_box.py clamps every parameter), false leaves logZ's gradient unclamped "
               "(train_line.py clamps only the parameters with ndim > 0).")
          .add("weight_decay", &T::weight_decay,
               "Decoupled (AdamW) weight decay of PF / PB / logF; 0: plain Adam.",
               config::non_negative())
          .add("average_every", &T::average_every,
               "Iterations between the agent group's decision points (spawn.policy: average, "
               "replace or pull).",
               config::at_least(1), {"iterations"})
          .add("average", &T::average,
               "What an agent group averages: models (parameters, every train.average_every "
               "iterations) or gradients (every iteration, from the first agent's initial "
               "parameters, as DDP).",
               config::AsInvalid{})
          .add("epsilon", &T::epsilon,
               "Off-policy sampling: share of uniformly random actions (epsilon-greedy).",
               config::in_unit_interval())
          .add("temperature", &T::temperature,
               "Off-policy sampling: PF's logits are divided by it.", config::positive())
          .add("temperature_start", &T::temperature_start,
               "> 0: the sampling temperature starts here and falls linearly to "
               "train.temperature over the first train.temperature_anneal_fraction of the "
               "iterations (torchgfn's train_box.py temperature_start); 0: off. Continuous "
               "environments only.",
               config::non_negative())
          .add("temperature_anneal_fraction", &T::temperature_anneal_fraction,
               "The fraction of the iterations over which the temperature falls from "
               "train.temperature_start to train.temperature: 0.5 (train_box.py's first half); 1 "
               "for train_line.py's exploration schedule over the whole run.",
               config::in_half_open_unit_interval())
          .add("loss_at_sampling_temperature", &T::loss_at_sampling_temperature,
               "true: the loss reads log PF and log PB at the iteration's sampling temperature "
               "(train.temperature, train.temperature_start), as torchgfn's train_box.py does "
               "with save_logprobs; false: at the policies themselves (temperature 1). "
               "Continuous environments only.")
          .add("lr_decay", &T::lr_decay,
               "< 1: every learning rate is multiplied by it every train.lr_decay_every "
               "iterations (torchgfn's train_box.py MultiStepLR, gamma_scheduler 0.5); 1: off. "
               "Continuous environments only.",
               config::in_half_open_unit_interval())
          .add("lr_decay_every", &T::lr_decay_every,
               "Iterations between two train.lr_decay steps; 0: a third of the run's "
               "iterations (train_box.py scheduler_milestone 0: three decays).",
               config::at_least(0), {"iterations"})
          .add("reward_exponent", &T::reward_exponent,
               "beta: the loss trains PF towards R^beta (the log rewards times beta; the "
               "rewards reported, submitted to the managers and validated stay R). Not with "
               "loss modified_db.",
               config::positive_finite())
          .add("seed", &T::seed, "Random seed; trainer rank r uses seed + r.")
          .add("num_threads", &T::num_threads,
               "Threads per rank: LibTorch intra-op threads; with engine.split_rows (the "
               "default) the rows of the MLP's GEMMs are split over them and OpenBLAS gets 1 "
               "thread, else OpenBLAS gets as many (engine.split_batch: one thread per batch "
               "part). Above 1, gfn-train starts with GOMP_SPINCOUNT=100000 when the GEMMs run "
               "on OpenMP threads (split rows, or bf16), else OMP_WAIT_POLICY=PASSIVE "
               "(docs/performance.md \"Two threads\").",
               config::at_least(1));
  return fields;
}

const config::Fields<ValidationOptions>& validation_fields() {
  using V = ValidationOptions;
  static const auto fields =
      config::Fields<V>()
          .add("enabled", &V::enabled, "Trainer rank 0 validates during and at the end of the run.")
          .add("interval", &V::interval, "Iterations between validations (and at the end).",
               config::at_least(1), {"iterations", true})
          .add("n_samples", &V::n_samples,
               "Fresh terminating states sampled for l1_sampled, and the window of states "
               "visited during training for l1_visited; on a continuous environment (box) the "
               "size of each sample set of the KDE Jensen-Shannon divergence (jsd).",
               config::at_least(std::int64_t{1}), {"samples"})
          .add("test_per_mode", &V::test_per_mode,
               "Environments with a test set (bit_sequence, non_autoregressive_bit_sequence): test "
               "sequences per mode for spearman_logp_logr (0: off).",
               config::at_least(0))
          .add("logp_samples", &V::logp_samples,
               "Environments with a test set: backward trajectories per test sequence to estimate "
               "log p_theta (0: off).",
               config::at_least(0))
          .add("fresh_samples", &V::fresh_samples,
               "At the end, fresh on-policy samples (epsilon 0, temperature 1) of the final PFs, "
               "split evenly over the trainers; summary.json reports the distinct modes they hit "
               "(fresh_sample_modes) and how many of them training had found; 0: off. Runs "
               "with or without validation.enabled.",
               config::at_least(std::int64_t{0}), {"samples"});
  return fields;
}

}  // namespace gfn::core
