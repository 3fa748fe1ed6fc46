#include "runtime/gfn/exploration.h"

#include "runtime/config/fields.h"
#include "runtime/gfn/agent.h"
#include "runtime/gfn/options.h"

namespace gfn::core {

void apply_exploration(const Exploration& e, TrainOptions& train, ModelOptions& model) {
  TrainOptions t = train;
  t.epsilon = e.epsilon;
  t.temperature = e.temperature;
  ModelOptions m = model;
  m.noisy_std_init = e.noisy_std_init;
  config::check_values(train_fields(), t, "train");
  config::check_values(model_fields(), m, "model");
  train = t;
  model = m;
}

}  // namespace gfn::core
