#pragma once
// The names of the modules' sections as the experiment's tests use them unqualified
// (tests/roles/experiment/): each type from the module that owns it.

#include "roles/experiment/experiment.h"

namespace gfn::roles {

using buffer::BaselineStrategy;
using buffer::ReplayKind;
using buffer::SamplerKind;
using config::ConfigError;
using config::IntRange;
using core::BlasKernels;
using core::HyperGridReward;
using core::LossKind;
using core::OptimizerKind;
using core::PreprocessorKind;
using core::StateTableMode;
using core::SubTrajectoryWeighting;
using core::TableBackward;
using core::TrainAverage;
using dist::spawn::SpawnMetric;
using dist::spawn::SpawnMode;
using dist::spawn::SpawnPolicy;
using dist::spawn::SpawnReplacementMode;
using dist::spawn::SpawnStrategy;
using output::ProgressMode;
using TransportBackend = transport::Backend;
using config::enum_choices;
using config::enum_name;
using config::parse_enum;
using core::EngineOptions;
using core::EnvOptions;
using core::ModelOptions;
using core::TrainOptions;
using dist::spawn::SpawnOptions;
using output::OutputOptions;

}  // namespace gfn::roles
