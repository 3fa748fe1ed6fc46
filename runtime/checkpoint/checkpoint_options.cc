#include "runtime/checkpoint/checkpoint_options.h"

#include "runtime/config/fields.h"

namespace gfn::checkpoint {

const config::Fields<CheckpointOptions>& checkpoint_fields() {
  using C = CheckpointOptions;
  const config::FieldTraits resumable{"", true};
  static const auto fields =
      config::Fields<C>()
          .add("every", &C::every,
               "Iterations between checkpoints (after iterations every, 2 every, ...); 0: off.",
               config::at_least(std::int64_t{0}), {"iterations", true})
          .add("on_signal", &C::on_signal,
               "On SIGTERM, SIGINT or SIGUSR1 the trainers stop at the next agreed iteration "
               "boundary and take a checkpoint there; false: they stop without one.",
               config::NoRule{}, resumable)
          .add("keep", &C::keep, "Checkpoints kept: the latest N.", config::at_least(1), resumable);
  return fields;
}

}  // namespace gfn::checkpoint
