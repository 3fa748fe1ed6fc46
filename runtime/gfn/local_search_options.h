#pragma once
// YAML `local_search:` (docs/configuration.md, docs/discovery.md): Local Search GFlowNets
// (Kim et al., "Local Search GFlowNets", ICLR 2024; torchgfn's LocalSearchSampler,
// gfn/samplers.py) run by the Learner (local_search.h), mode reverse_completion; and for
// continuous targets with a gradient (env.name diffusion) Metropolis-adjusted Langevin steps in
// the target space (Sendera et al. 2024, "Improved off-policy training of diffusion samplers",
// gfn-diffusion's energy_sampling/langevin.py), mode langevin, run by the ContinuousLearner
// (continuous/langevin.h). Plain value types, no LibTorch.

#include "runtime/config/enum_names.h"

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::core {

/// local_search.acceptance: which of a search point x and its re-completion x' the next
/// round searches from (both are trained on either way).
enum class LocalSearchAcceptance {
  kFilter,  ///< deterministic filter: x' when log R(x') >= log R(x) (torchgfn's default)
  /// Metropolis-Hastings: x' with probability
  /// min(1, R(x') PB(tau | x) PF(tau') / (R(x) PB(tau' | x') PF(tau))) (on-policy PF, PB)
  kMetropolisHastings,
};
inline constexpr config::EnumName<LocalSearchAcceptance> kLocalSearchAcceptanceNames[] = {
    {LocalSearchAcceptance::kFilter, "filter"},
    {LocalSearchAcceptance::kMetropolisHastings, "metropolis_hastings"}};
inline constexpr const auto& enum_names(LocalSearchAcceptance) {
  return kLocalSearchAcceptanceNames;
}

/// local_search.mode: which local search.
enum class LocalSearchMode {
  kReverseCompletion,  ///< Kim et al.: undo K actions with PB, re-complete with PF (discrete)
  kLangevin,           ///< MALA steps in the target space (continuous targets with a gradient)
};
inline constexpr config::EnumName<LocalSearchMode> kLocalSearchModeNames[] = {
    {LocalSearchMode::kReverseCompletion, "reverse_completion"},
    {LocalSearchMode::kLangevin, "langevin"}};
inline constexpr const auto& enum_names(LocalSearchMode) { return kLocalSearchModeNames; }

struct LocalSearchOptions {
  LocalSearchMode mode = LocalSearchMode::kReverseCompletion;
  /// Search rounds per iteration; 0 = off. With L rounds, a trainer's local batch of B
  /// trajectories is M = floor(B / (1 + L)) sampled from s0, L * M re-completions (one per
  /// round and search point) and B - M (1 + L) more from s0 that are not searched.
  int loops = 0;
  /// Share of a trajectory's non-exit actions undone (K = ceil(back_ratio * n), at least one
  /// when n >= 1), in (0, 1].
  double back_ratio = 0.5;
  LocalSearchAcceptance acceptance = LocalSearchAcceptance::kFilter;

  // ---- mode langevin (continuous/langevin.h) -------------------------------------------
  /// MALA steps per search (gfn-diffusion's max_iter_ls), >= 1.
  int langevin_steps = 100;
  /// The initial step size eta of x' = x + eta grad log R(x) + sqrt(2 eta) eps (ld_step), > 0.
  double langevin_step = 0.01;
  /// Adapt eta toward target_acceptance (gfn-diffusion's --ld_schedule): +-1% per step.
  bool langevin_adapt = true;
  /// The acceptance rate the adaptation aims at, in (0, 1) (0.574: optimal for MALA).
  double target_acceptance = 0.574;
  /// Search on the iterations i with (i - 1) % langevin_every == 0 (gfn-diffusion's ls_cycle).
  int langevin_every = 1;
  /// Fresh terminating states searched per searching iteration (their searched states are
  /// trained on through backward paths in the same iteration); 0: only the replayed ones.
  int langevin_fresh = 0;
};

/// The `local_search:` keys (local_search_options.cc).
const config::Fields<LocalSearchOptions>& local_search_fields();

}  // namespace gfn::core
