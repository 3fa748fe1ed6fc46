#pragma once
// YAML `local_search:` (docs/configuration.md, docs/discovery.md): Local Search GFlowNets
// (Kim et al., "Local Search GFlowNets", ICLR 2024; torchgfn's LocalSearchSampler,
// gfn/samplers.py) run by the Learner (local_search.h). Plain value types, no LibTorch.

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

struct LocalSearchOptions {
  /// Search rounds per iteration; 0 = off. With L rounds, a trainer's local batch of B
  /// trajectories is M = floor(B / (1 + L)) sampled from s0, L * M re-completions (one per
  /// round and search point) and B - M (1 + L) more from s0 that are not searched.
  int loops = 0;
  /// Share of a trajectory's non-exit actions undone (K = ceil(back_ratio * n), at least one
  /// when n >= 1), in (0, 1].
  double back_ratio = 0.5;
  LocalSearchAcceptance acceptance = LocalSearchAcceptance::kFilter;
};

/// The `local_search:` keys (local_search_options.cc).
const config::Fields<LocalSearchOptions>& local_search_fields();

}  // namespace gfn::core
