// FlatAdamW::save_state / load_state (flat_adam.h): its part of a checkpoint, the entries
// "step", "n_groups", "exp_avg<i>" and "exp_avg_sq<i>" of the Learner's "optimizer" archive.
#include <torch/serialize/archive.h>

#include <string>
#include <vector>

#include "runtime/gfn/archive_io.h"
#include "runtime/gfn/fast/flat_adam.h"

namespace gfn::core {

void FlatAdamW::save_state(torch::serialize::OutputArchive& archive) const {
  archive.write("step", c10::IValue(steps_done()));
  archive.write("n_groups", c10::IValue(static_cast<std::int64_t>(n_groups())));
  for (std::size_t i = 0; i < n_groups(); ++i) {
    archive.write("exp_avg" + std::to_string(i), flat_exp_avg(i).clone());
    archive.write("exp_avg_sq" + std::to_string(i), flat_exp_avg_sq(i).clone());
  }
}

void FlatAdamW::load_state(torch::serialize::InputArchive& archive) {
  const auto n = static_cast<std::size_t>(read_int(archive, "n_groups"));
  std::vector<at::Tensor> m, v;
  for (std::size_t i = 0; i < n; ++i) {
    m.push_back(read_tensor(archive, "exp_avg" + std::to_string(i)));
    v.push_back(read_tensor(archive, "exp_avg_sq" + std::to_string(i)));
  }
  load_state(read_int(archive, "step"), m, v);
}

}  // namespace gfn::core
