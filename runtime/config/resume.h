#pragma once
// The configuration of a resumed run (docs/checkpoints.md): the experiment comes from the
// checkpoint (its config.yaml, the text its manifest hashes), and `--set` may change only
// the options registered as resumable (FieldTraits::resumable: those that do not alter
// what the next iterations compute, such as the budget, logging and checkpointing).
// Thread-safe (pure); throws ConfigError (schema.h).

#include <string>
#include <vector>

#include "runtime/config/schema.h"

namespace gfn::config {

/// Throws ConfigError naming every key of `differing` that is not in `resumable` and the
/// checkpoint's config file; nothing when all are resumable.
void refuse_non_resumable(const std::vector<std::string>& differing,
                          const std::vector<std::string>& resumable,
                          const std::string& checkpoint_config_path);

/// schema.load(checkpoint_config_path, overrides), refusing overrides that change a key
/// which is not resumable.
template <class R>
R load_for_resume(const TypedSchema<R>& schema, const std::string& checkpoint_config_path,
                  const std::vector<std::string>& overrides) {
  const R saved = schema.load(checkpoint_config_path);
  R resumed = schema.load(checkpoint_config_path, overrides);
  refuse_non_resumable(schema.differing_keys(saved, resumed), schema.resumable_keys(),
                       checkpoint_config_path);
  return resumed;
}

}  // namespace gfn::config
