#pragma once
// An experiment's configuration: one section per module, each section's struct and keys
// owned by its module (experiment.h loads it; docs/configuration.md is the reference):
//
//   layout      roles/planner/layout_options.h          LayoutOptions
//   transport   roles/context/transport_options.h       TransportConfig
//   launch      runtime/launch/launch_options.h         LaunchOptions
//   env         runtime/gfn/env/env_options.h           EnvOptions (+ each environment's)
//   model       runtime/gfn/options.h                   ModelOptions
//   train       runtime/gfn/options.h                   TrainOptions
//   local_search runtime/gfn/local_search_options.h     LocalSearchOptions
//   buffer      roles/buffer_manager/buffer_options.h   BufferOptions
//   replay      runtime/buffer/options.h                ReplayOptions
//   validation  runtime/gfn/options.h                   ValidationOptions
//   spawn       runtime/distributed/spawn/options.h     SpawnOptions
//   output      runtime/output/output_options.h         OutputOptions
//   checkpoint  runtime/checkpoint/checkpoint_options.h CheckpointOptions
//   engine      runtime/gfn/engine_options.h            EngineOptions
//
// Plain value type; its headers include no LibTorch and no YAML library.

#include <cstdint>
#include <string>

#include "roles/buffer_manager/buffer_options.h"
#include "roles/context/transport_options.h"
#include "roles/planner/layout_options.h"
#include "runtime/buffer/options.h"
#include "runtime/checkpoint/checkpoint_options.h"
#include "runtime/distributed/spawn/options.h"
#include "runtime/gfn/engine_options.h"
#include "runtime/gfn/env/env_options.h"
#include "runtime/gfn/local_search_options.h"
#include "runtime/gfn/options.h"
#include "runtime/launch/launch_options.h"
#include "runtime/output/output_options.h"

namespace gfn::roles {

struct ExperimentConfig {
  LayoutOptions layout;
  TransportConfig transport;
  launch::LaunchOptions launch;
  core::EnvOptions env;
  core::ModelOptions model;
  core::TrainOptions train;
  core::LocalSearchOptions local_search;
  BufferOptions buffer;
  buffer::ReplayOptions replay;
  core::ValidationOptions validation;
  dist::spawn::SpawnOptions spawn;
  output::OutputOptions output;
  checkpoint::CheckpointOptions checkpoint;
  core::EngineOptions engine;
  std::string source_file;  ///< the YAML file it came from ("" for defaults)

  /// Iterations to run: train.n_iterations if > 0, else ceil(n_trajectories / batch_size).
  std::int64_t iterations() const { return train.iterations(); }
};

}  // namespace gfn::roles
