#include "runtime/gfn/local_search_options.h"

#include "runtime/config/fields.h"

namespace gfn::core {

const config::Fields<LocalSearchOptions>& local_search_fields() {
  using L = LocalSearchOptions;
  static const auto fields =
      config::Fields<L>()
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
               config::AsInvalid{});
  return fields;
}

}  // namespace gfn::core
