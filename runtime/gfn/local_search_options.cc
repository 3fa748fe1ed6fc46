#include "runtime/gfn/local_search_options.h"

#include "runtime/config/fields.h"

#include <string>

namespace gfn::core {
namespace {

auto in_open_unit_interval() {
  return config::make_rule("in (0, 1)", [](double v) -> std::string {
    if (v > 0.0 && v < 1.0) return "";
    return "must be in (0, 1)";
  });
}

}  // namespace

const config::Fields<LocalSearchOptions>& local_search_fields() {
  using L = LocalSearchOptions;
  static const auto fields =
      config::Fields<L>()
          .add("mode", &L::mode,
               "reverse_completion: Local Search GFlowNets on discrete environments (loops, "
               "back_ratio, acceptance). langevin: Metropolis-adjusted Langevin steps in the "
               "target space on continuous targets with a gradient (env.name diffusion; Sendera "
               "et al. 2024) from the replayed states (and langevin_fresh fresh ones).",
               config::AsInvalid{})
          .add("loops", &L::loops,
               "Local Search GFlowNets (Kim et al. 2024): search rounds per iteration; 0: off. "
               "A local batch of B is M = floor(B / (1 + loops)) trajectories from s0, loops * M "
               "re-completions and the remainder from s0 (every one counts in the budget).",
               config::at_least(0))
          .add("back_ratio", &L::back_ratio,
               "Share of a trajectory's actions a search round undoes with PB before PF "
               "re-completes it: K = ceil(back_ratio * length), in (0, 1].",
               config::in_half_open_unit_interval())
          .add("acceptance", &L::acceptance,
               "Which of x and its re-completion x' the next round searches from: filter "
               "(x' when R(x') >= R(x)) or metropolis_hastings (torchgfn's acceptance ratio).",
               config::AsInvalid{})
          .add("langevin_steps", &L::langevin_steps,
               "mode langevin: MALA steps per search (gfn-diffusion's max_iter_ls).",
               config::at_least(1))
          .add("langevin_step", &L::langevin_step,
               "mode langevin: the initial step size eta of x' = x + eta grad log R(x) + "
               "sqrt(2 eta) eps (gfn-diffusion's ld_step).",
               config::positive_finite())
          .add("langevin_adapt", &L::langevin_adapt,
               "mode langevin: adapt eta by +-1% per step toward target_acceptance (the "
               "acceptance of the last 5 steps; gfn-diffusion's ld_schedule); eta carries over "
               "from search to search.")
          .add("target_acceptance", &L::target_acceptance,
               "mode langevin: the acceptance rate the adaptation aims at "
               "(gfn-diffusion's target_acceptance_rate).",
               in_open_unit_interval())
          .add("langevin_every", &L::langevin_every,
               "mode langevin: search on iterations 1, 1 + every, 1 + 2 every, ... "
               "(gfn-diffusion's ls_cycle).",
               config::at_least(1))
          .add("langevin_fresh", &L::langevin_fresh,
               "mode langevin: fresh terminating states searched per searching iteration and "
               "trained on through backward paths (a world without buffer managers can search).",
               config::at_least(0));
  return fields;
}

}  // namespace gfn::core
