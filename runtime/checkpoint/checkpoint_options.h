#pragma once
// YAML `checkpoint:`: when a run writes checkpoints and how many it keeps
// (docs/configuration.md; store.h writes them). Plain value type.

#include <cstdint>

namespace gfn::config {
template <class S>
class Fields;
}

namespace gfn::checkpoint {

struct CheckpointOptions {
  std::int64_t every = 0;  ///< iterations between checkpoints; 0 = off
  bool on_signal = true;   ///< SIGTERM / SIGINT / SIGUSR1 take a checkpoint before stopping
  int keep = 2;            ///< checkpoints kept (the latest N; >= 1)
};

/// The `checkpoint:` keys (checkpoint_options.cc); all may change on --resume.
const config::Fields<CheckpointOptions>& checkpoint_fields();

}  // namespace gfn::checkpoint
