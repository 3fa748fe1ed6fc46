#include "runtime/distributed/spawn/options.h"

#include "runtime/config/fields.h"

namespace gfn::dist::spawn {

const config::Fields<SpawnOptions>& spawn_fields() {
  using S = SpawnOptions;
  using config::AsInvalid;
  static const auto fields =
      config::Fields<S>()
          .add("policy", &S::policy,
               "What an agent group does every train.average_every iterations: average_all "
               "(average the members, train.average), selective (replace the worst agents by a "
               "combination of the others), donor_pull (a dying agent pulls random donors' "
               "parameters from MPI one-sided windows; mpi backend). docs/spawn.md.",
               AsInvalid{})
          .add("mode", &S::mode,
               "selective: sync (every member waits at the decision point) or async (no "
               "barrier: metrics and parameters point to point, applied when arrived).",
               AsInvalid{})
          .add("replacement_ratio", &S::replacement_ratio,
               "Share of the group replaced at a decision: max(1, floor(n * ratio)) of the n "
               "agents, at most n - 1; donor_pull worst_ratio: the share counted as dying.",
               config::in_half_open_unit_interval())
          .add("strategy", &S::strategy,
               "What a replaced agent becomes: mean (of the agents not replaced), "
               "weighted_mean (better donors weigh more), best_only, reset_weights (a fresh "
               "initialisation).",
               AsInvalid{})
          .add("momentum", &S::momentum, "A replaced agent keeps this share of its own weights.",
               config::in_unit_interval())
          .add("threshold", &S::threshold,
               "The group replaces only when its lowest metric is below it (.inf: always); "
               "donor_pull threshold: an agent below it is dying.",
               config::not_nan())
          .add("cooldown", &S::cooldown,
               "Iterations after a replacement during which the group does not replace again.",
               config::at_least(std::int64_t{0}), {"iterations"})
          .add("metric", &S::metric,
               "Each agent's local metric, higher is better: score (its manager's latest "
               "SCORE; needs a buffer manager), neg_loss (minus its latest loss), modes_found.",
               AsInvalid{})
          .add("random_strategies", &S::random_strategies,
               "Per-agent exploration: each trainer draws its epsilon, temperature and NoisyNet "
               "sigma_0 around the configured values (and again when replaced); the number of "
               "noisy layers is drawn per agent group.")
          .add("epsilon_std", &S::epsilon_std,
               "Standard deviation of the epsilon draws (clamped to [0, 1]).",
               config::non_negative())
          .add("temperature_std", &S::temperature_std,
               "Standard deviation of the temperature draws (clamped to [0.05, 20]).",
               config::non_negative())
          .add("replacement_mode", &S::replacement_mode,
               "donor_pull: when an agent is dying: age (its age reached its maximum age), "
               "threshold (its metric is below spawn.threshold), worst_ratio (its metric is "
               "among the spawn.replacement_ratio worst).",
               AsInvalid{})
          .add("age_range", &S::age_range,
               "donor_pull, age: each agent's maximum age, drawn uniformly from [min, max] at "
               "the start and after each respawn, e.g. --set spawn.age_range=[50,80].",
               config::ordered_range(1), {"iterations"})
          .add("num_donors", &S::num_donors,
               "donor_pull: donors a dying agent pulls (distinct, never itself, at most the "
               "group size - 1).",
               config::at_least(std::int64_t{1}))
          .add("noisy_std_init_std", &S::noisy_std_init_std,
               "Standard deviation of the NoisyNet sigma_0 draws (clamped to [1e-3, 10]).",
               config::non_negative());
  return fields;
}

}  // namespace gfn::dist::spawn
