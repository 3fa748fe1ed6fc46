#include "roles/experiment/experiment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/roles/experiment/config_file_test.h"

namespace gfn::roles {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

constexpr const char* kFullYaml = R"(
layout:
  num_buffers: 2
  num_agent_groups: 3
  coordinator: true
  placement: hostname
transport:
  backend: torch
  max_message_bytes: 1048576
  timeout_s: 12.5
  rendezvous_timeout_s: 45
env:
  name: hypergrid
  ndim: 4
  height: 16
  reward: original
  R0: 0.001
  R1: 0.25
  R2: 3
  preprocessor: onehot
model:
  hidden_dim: 64
  n_hidden: 3
  tied: true
  uniform_pb: true
train:
  loss: tb
  batch_size: 48
  n_trajectories: 960
  n_iterations: 7
  lr: 0.0005
  lr_logz: 0.05
  weight_decay: 0.01
  average_every: 2
  average: gradients
  epsilon: 0.1
  temperature: 1.5
  seed: 18446744073709551615
  num_threads: 2
buffer:
  capacity: 77
  remote_buffer_freq: 3
validation:
  enabled: false
  interval: 9
  n_samples: 1234
output:
  dir: /tmp/some run
  log_every: 4
)";

void expect_full(const ExperimentConfig& c) {
  EXPECT_EQ(c.layout.num_buffers, 2);
  EXPECT_EQ(c.layout.num_agent_groups, 3);
  EXPECT_TRUE(c.layout.coordinator);
  EXPECT_EQ(c.layout.placement, Placement::kHostname);
  EXPECT_EQ(c.transport.backend, TransportBackend::kTorch);
  EXPECT_EQ(c.transport.max_message_bytes, 1048576u);
  EXPECT_DOUBLE_EQ(c.transport.timeout_s, 12.5);
  EXPECT_DOUBLE_EQ(c.transport.rendezvous_timeout_s, 45.0);
  EXPECT_EQ(c.env.get<core::HyperGridOptions>().ndim, 4);
  EXPECT_EQ(c.env.get<core::HyperGridOptions>().height, 16);
  EXPECT_DOUBLE_EQ(c.env.get<core::HyperGridOptions>().R0, 0.001);
  EXPECT_DOUBLE_EQ(c.env.get<core::HyperGridOptions>().R1, 0.25);
  EXPECT_DOUBLE_EQ(c.env.get<core::HyperGridOptions>().R2, 3.0);
  EXPECT_EQ(c.env.preprocessor, PreprocessorKind::kOneHot);
  EXPECT_EQ(c.model.hidden_dim, 64);
  EXPECT_EQ(c.model.n_hidden, 3);
  EXPECT_TRUE(c.model.tied);
  EXPECT_TRUE(c.model.uniform_pb);
  EXPECT_EQ(c.train.batch_size, 48);
  EXPECT_EQ(c.train.n_trajectories, 960);
  EXPECT_EQ(c.train.n_iterations, 7);
  EXPECT_DOUBLE_EQ(c.train.lr, 0.0005);
  EXPECT_DOUBLE_EQ(c.train.lr_logz, 0.05);
  EXPECT_DOUBLE_EQ(c.train.weight_decay, 0.01);
  EXPECT_EQ(c.train.average_every, 2);
  EXPECT_EQ(c.train.average, TrainAverage::kGradients);
  EXPECT_DOUBLE_EQ(c.train.epsilon, 0.1);
  EXPECT_DOUBLE_EQ(c.train.temperature, 1.5);
  EXPECT_EQ(c.train.seed, 18446744073709551615ull);
  EXPECT_EQ(c.train.num_threads, 2);
  EXPECT_EQ(c.buffer.capacity, 77);
  EXPECT_EQ(c.buffer.remote_buffer_freq, 3);
  EXPECT_FALSE(c.validation.enabled);
  EXPECT_EQ(c.validation.interval, 9);
  EXPECT_EQ(c.validation.n_samples, 1234);
  EXPECT_EQ(c.output.dir, "/tmp/some run");
  EXPECT_EQ(c.output.log_every, 4);
  EXPECT_EQ(c.iterations(), 7);
}

TEST_F(ConfigFileTest, FullFileLoadsAndRoundTripsThroughToYaml) {
  const std::string path = write("full.yaml", kFullYaml);
  const ExperimentConfig c = load_config(path);
  expect_full(c);
  EXPECT_EQ(c.source_file, path);

  const std::string emitted = to_yaml(c);
  for (const auto& key : config_keys()) {
    EXPECT_THAT(emitted, HasSubstr(key.substr(key.find('.') + 1) + ":")) << key;
  }
  const ExperimentConfig again = load_config(write("again.yaml", emitted));
  expect_full(again);
  EXPECT_EQ(to_yaml(again), emitted);
}

TEST_F(ConfigFileTest, DefaultsAndPartialFiles) {
  const ExperimentConfig d = default_config();
  EXPECT_EQ(d.train.batch_size, 128);
  EXPECT_EQ(d.source_file, "");
  EXPECT_EQ(to_yaml(load_config("")), to_yaml(d));
  // A partial file keeps the defaults of the keys it does not name.
  const ExperimentConfig c = load_config(write("p.yaml", "train:\n  batch_size: 16\nenv:\n"));
  EXPECT_EQ(c.train.batch_size, 16);
  EXPECT_EQ(c.train.lr, d.train.lr);
  EXPECT_EQ(c.env.get<core::HyperGridOptions>().height, d.env.get<core::HyperGridOptions>().height);
  // An empty file is all defaults; the round trip of the defaults holds too.
  EXPECT_EQ(to_yaml(load_config(write("empty.yaml", ""))), to_yaml(d));
  EXPECT_EQ(to_yaml(load_config(write("d.yaml", to_yaml(d)))), to_yaml(d));
}

TEST_F(ConfigFileTest, OverridesWinOverFileAndLastOverrideWins) {
  const std::string path = write("o.yaml", "train:\n  batch_size: 16\n  lr: 0.01\n");
  const ExperimentConfig c =
      load_config(path, {"train.batch_size=32", "env.preprocessor=identity", "train.batch_size=64",
                         "layout.coordinator=true", "output.dir=runs/a=b"});
  EXPECT_EQ(c.train.batch_size, 64);
  EXPECT_DOUBLE_EQ(c.train.lr, 0.01);  // from the file
  EXPECT_EQ(c.env.preprocessor, PreprocessorKind::kIdentity);
  EXPECT_TRUE(c.layout.coordinator);
  EXPECT_EQ(c.output.dir, "runs/a=b");  // only the first '=' separates key and value
  // Overrides also apply without a file.
  EXPECT_EQ(load_config("", {"env.height=3"}).env.get<core::HyperGridOptions>().height, 3);
}

TEST_F(ConfigFileTest, UnknownKeysNameKeyAndFile) {
  const std::string p1 = write("s.yaml", "trian:\n  batch_size: 4\n");
  EXPECT_THAT(error_of(p1),
              AllOf(HasSubstr("unknown section 'trian'"), HasSubstr(p1), HasSubstr("line 1")));
  const std::string p2 = write("k.yaml", "train:\n  lr: 0.1\n  bach_size: 4\n");
  EXPECT_THAT(error_of(p2), AllOf(HasSubstr("unknown key 'train.bach_size'"), HasSubstr(p2),
                                  HasSubstr("line 3"), HasSubstr("batch_size")));
  const std::string p3 = write("ok.yaml", "train:\n  lr: 0.1\n");
  EXPECT_THAT(error_of(p3, {"train.bach_size=4"}),
              AllOf(HasSubstr("--set train.bach_size=4"), HasSubstr("unknown key"), HasSubstr(p3),
                    HasSubstr("did you mean train.batch_size?")));
  // The nearest keys only, not the ~180 of the schema (env.ndim is far from it).
  EXPECT_THAT(error_of(p3, {"train.bach_size=4"}), Not(HasSubstr("env.ndim")));
  // The key in another section is near too.
  EXPECT_THAT(error_of(p3, {"model.batch_size=4"}), HasSubstr("did you mean train.batch_size?"));
  EXPECT_THAT(error_of(p3, {"batch_size"}),
              AllOf(HasSubstr("--set 'batch_size'"), HasSubstr("section.key=value")));
}

// buffer.remote_sample_prioritized (a bool) became buffer.remote_sampler (a selector name of
// the manager's replay table): the old key is refused with its new name, in a file and in
// --set; the new one takes the two names only.
TEST_F(ConfigFileTest, RenamedKeyNamesItsNewName) {
  const std::string p = write("r.yaml", "buffer:\n  remote_sample_prioritized: false\n");
  EXPECT_THAT(error_of(p), AllOf(HasSubstr("'buffer.remote_sample_prioritized' was renamed"),
                                 HasSubstr("buffer.remote_sampler: prioritized | uniform"),
                                 HasSubstr(p), HasSubstr("line 2")));
  const std::string ok = write("ok.yaml", "buffer:\n  remote_sampler: uniform\n");
  EXPECT_EQ(load_config(ok, {}).buffer.remote_sampler, SamplerKind::kUniform);
  EXPECT_EQ(load_config("", {}).buffer.remote_sampler, SamplerKind::kPrioritized);
  EXPECT_THAT(error_of(ok, {"buffer.remote_sample_prioritized=true"}),
              AllOf(HasSubstr("--set buffer.remote_sample_prioritized=true"),
                    HasSubstr("was renamed: use buffer.remote_sampler")));
  EXPECT_THAT(error_of(ok, {"buffer.remote_sampler=fifo"}), HasSubstr("buffer.remote_sampler"));
}

TEST_F(ConfigFileTest, WrongTypesNameKeyFileAndValue) {
  const std::string p = write("t.yaml", "train:\n  batch_size: abc\n");
  EXPECT_THAT(error_of(p), AllOf(HasSubstr("train.batch_size must be an integer, got 'abc'"),
                                 HasSubstr(p), HasSubstr("line 2")));
  EXPECT_THAT(error_of(write("f.yaml", "train:\n  batch_size: 1.5\n")), HasSubstr("got '1.5'"));
  EXPECT_THAT(error_of(write("b.yaml", "model:\n  tied: maybe\n")),
              HasSubstr("model.tied must be a boolean"));
  EXPECT_THAT(error_of(write("d.yaml", "train:\n  lr: fast\n")),
              HasSubstr("train.lr must be a number, got 'fast'"));
  EXPECT_THAT(error_of(write("u.yaml", "train:\n  seed: -1\n")),
              HasSubstr("train.seed must be a non-negative integer, got '-1'"));
  EXPECT_THAT(error_of(write("m.yaml", "output:\n  dir: [a, b]\n")),
              HasSubstr("output.dir must be a string, got '(a sequence)'"));
  EXPECT_THAT(error_of(write("sec.yaml", "train: 5\n")),
              HasSubstr("section 'train' must be a mapping"));
  EXPECT_THAT(error_of(write("top.yaml", "- a\n- b\n")),
              HasSubstr("expected a mapping of sections"));
  // Complex keys (found by tests/fuzz/config_fuzz.cc): refused naming file and line.
  EXPECT_THAT(error_of(write("ck.yaml", "train:\n? loss: tb\n  lr: 0.1\n")),
              AllOf(HasSubstr("ck.yaml' line 2"), HasSubstr("must be a plain name"),
                    HasSubstr("(a mapping)")));
  EXPECT_THAT(error_of(write("cs.yaml", "? [train]\n: {lr: 0.1}\n")),
              AllOf(HasSubstr("cs.yaml' line 1"), HasSubstr("must be a plain name"),
                    HasSubstr("(a sequence)")));
  EXPECT_THAT(error_of(p, {"train.batch_size=abc"}), HasSubstr("got 'abc'"));
  EXPECT_THAT(error_of("", {"train.batch_size=12x"}),
              AllOf(HasSubstr("--set train.batch_size=12x"), HasSubstr("must be an integer")));
}

TEST_F(ConfigFileTest, ImpossibleValuesNameKeyFileAndValue) {
  struct Case {
    std::string yaml, key_and_value, rule;
  };
  const std::vector<Case> cases = {
      {"train:\n  batch_size: 0\n", "train.batch_size = 0", "must be > 0"},
      {"env:\n  height: 1\n", "env.height = 1", "must be >= 2"},
      {"env:\n  ndim: 0\n", "env.ndim = 0", "must be >= 1"},
      {"train:\n  lr: -0.001\n", "train.lr = -0.001", "must be >= 0"},
      {"train:\n  lr: .nan\n", "train.lr = nan", "must be >= 0"},
      {"train:\n  lr_logz: -1e-9\n", "train.lr_logz = -1e-09", "must be >= 0"},
      {"train:\n  reward_exponent: 0\n", "train.reward_exponent = 0", "must be > 0 and finite"},
      {"train:\n  reward_exponent: .inf\n", "train.reward_exponent = inf",
       "must be > 0 and finite"},
      {"transport:\n  backend: nccl\n", "transport.backend = nccl", "mpi, torch"},
      {"transport:\n  timeout_s: 0\n", "transport.timeout_s = 0", "must be > 0"},
      {"transport:\n  rendezvous_timeout_s: -1\n", "transport.rendezvous_timeout_s = -1",
       "must be > 0"},
      {"env:\n  reward: bogus\n", "env.reward = bogus", "must be one of"},
      {"env:\n  preprocessor: bogus\n", "env.preprocessor = bogus", "khot, onehot, identity"},
      {"train:\n  loss: bogus\n", "train.loss = bogus", "must be one of"},
      {"layout:\n  placement: bogus\n", "layout.placement = bogus", "auto, arithmetic"},
      {"train:\n  average: bogus\n", "train.average = bogus", "models, gradients"},
      {"layout:\n  num_buffers: -1\n", "layout.num_buffers = -1", "must be >= 0"},
      {"buffer:\n  receive_wait: busy\n", "buffer.receive_wait = busy", "spin, sleep"},
      {"train:\n  n_iterations: -2\n", "train.n_iterations = -2", "must be >= 0"},
      {"train:\n  epsilon: 1.5\n", "train.epsilon = 1.5", "[0, 1]"},
      {"output:\n  dir: ''\n", "output.dir = ", "must not be empty"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string p = write("bad" + std::to_string(i++) + ".yaml", c.yaml);
    EXPECT_THAT(error_of(p), AllOf(HasSubstr(p), HasSubstr(c.key_and_value), HasSubstr(c.rule)))
        << c.yaml;
  }
  // An impossible override names --set (and the file for context).
  const std::string ok = write("ok.yaml", "train:\n  batch_size: 8\n");
  EXPECT_THAT(error_of(ok, {"train.batch_size=-3"}),
              AllOf(HasSubstr("--set train.batch_size=-3"), HasSubstr(ok),
                    HasSubstr("train.batch_size = -3 is invalid")));
  // An enumerated option's unknown name, from --set: its allowed names from the enum's table.
  EXPECT_THAT(error_of(ok, {"buffer.submit_mode=later"}),
              AllOf(HasSubstr("--set buffer.submit_mode=later"), HasSubstr(ok),
                    HasSubstr("buffer.submit_mode = later is invalid: must be one of: sync, "
                              "async, fire_and_forget")));
  EXPECT_THAT(error_of(ok, {"buffer.baseline_aggregate=median"}),
              HasSubstr("buffer.baseline_aggregate = median is invalid: must be one of: min, "
                        "mean, max"));
  // A later valid override fixes an invalid file value.
  const std::string bad = write("fix.yaml", "train:\n  batch_size: 0\n");
  EXPECT_EQ(load_config(bad, {"train.batch_size=5"}).train.batch_size, 5);
}

// The boundary values the rules accept: a learning rate of 0 freezes its group (lr, lr_logz),
// and any finite positive reward exponent is a valid beta.
// env.python (a Python environment): any env.name, env.options as its keyword arguments, not
// with env.plugin; without it, env.options and an unknown env.name are refused as before.
TEST_F(ConfigFileTest, PythonEnvironmentKeys) {
  const std::string py = write("py.yaml",
                               "env:\n  name: my_grid\n  python: 'grid:Grid'\n  options: {size: "
                               "6}\n  python_path: /some/dir\n  reward_python: 'r:f'\n");
  const ExperimentConfig c = load_config(py);
  EXPECT_EQ(c.env.name, "my_grid");
  EXPECT_EQ(c.env.python, "grid:Grid");
  EXPECT_EQ(c.env.python_path, "/some/dir");
  EXPECT_EQ(c.env.reward_python, "r:f");
  EXPECT_EQ(c.env.options.at("size"), "6");
  EXPECT_THAT(error_of(py, {"env.plugin=libx.so"}),
              AllOf(HasSubstr("env.python"), HasSubstr("set only one of them")));
  EXPECT_THAT(error_of(py, {"env.python="}),
              AllOf(HasSubstr("env.name = my_grid"), HasSubstr("with env.python")));
  EXPECT_THAT(error_of(py, {"env.python=", "env.name=hypergrid"}),
              AllOf(HasSubstr("env.options"), HasSubstr("or a Python environment (env.python)")));
}

TEST_F(ConfigFileTest, BoundaryValuesTheRulesAccept) {
  const std::string p = write("edge.yaml", "train:\n  lr: 0\n  lr_logz: 0\n");
  const auto c = load_config(p, {"train.reward_exponent=1e-6"});
  EXPECT_EQ(c.train.lr, 0.0);
  EXPECT_EQ(c.train.lr_logz, 0.0);
  EXPECT_EQ(c.train.reward_exponent, 1e-6);
  EXPECT_EQ(load_config(p, {"train.reward_exponent=1000"}).train.reward_exponent, 1000.0);
}

TEST_F(ConfigFileTest, UnreadableFilesAndSyntaxErrors) {
  const std::string missing = (dir_ / "nope.yaml").string();
  EXPECT_THAT(error_of(missing), AllOf(HasSubstr("cannot open"), HasSubstr(missing)));
  const std::string p = write("syntax.yaml", "train:\n  batch_size: [1, 2\n");
  EXPECT_THAT(error_of(p), AllOf(HasSubstr("YAML syntax error"), HasSubstr(p)));
}

// The `launch:` section: unset by default, explicit values from the file and --set,
// out-of-range values refused naming the key, and the section round-trips through to_yaml.
TEST_F(ConfigFileTest, LaunchSectionIsUnsetByDefaultAndValidated) {
  const ExperimentConfig d = load_config("");
  EXPECT_EQ(d.launch.rank, -1);
  EXPECT_EQ(d.launch.world_size, -1);
  EXPECT_EQ(d.launch.local_rank, -1);
  EXPECT_EQ(d.launch.local_world_size, -1);
  EXPECT_EQ(d.launch.master_addr, "");
  EXPECT_EQ(d.launch.master_port, 0);
  const std::string p = write("launch.yaml",
                              "launch:\n  rank: 1\n  world_size: 2\n  master_addr: 10.1.2.3\n"
                              "  master_port: 29400\n");
  const ExperimentConfig c = load_config(p, {"launch.local_rank=0", "launch.local_world_size=2"});
  EXPECT_EQ(c.launch.rank, 1);
  EXPECT_EQ(c.launch.world_size, 2);
  EXPECT_EQ(c.launch.local_rank, 0);
  EXPECT_EQ(c.launch.local_world_size, 2);
  EXPECT_EQ(c.launch.master_addr, "10.1.2.3");
  EXPECT_EQ(c.launch.master_port, 29400);
  const ExperimentConfig back = load_config(write("back.yaml", to_yaml(c)));
  EXPECT_EQ(back.launch.rank, 1);
  EXPECT_EQ(back.launch.master_addr, "10.1.2.3");
  EXPECT_EQ(load_config(write("unset.yaml", to_yaml(d))).launch.master_addr, "");
  EXPECT_THAT(error_of("", {"launch.rank=-2"}),
              AllOf(HasSubstr("launch.rank = -2"), HasSubstr("-1 (unset) or >= 0")));
  EXPECT_THAT(error_of("", {"launch.world_size=0"}), HasSubstr("launch.world_size = 0"));
  EXPECT_THAT(error_of("", {"launch.local_world_size=0"}),
              HasSubstr("launch.local_world_size = 0"));
  EXPECT_THAT(error_of("", {"launch.master_port=70000"}),
              AllOf(HasSubstr("launch.master_port = 70000"), HasSubstr("1..65535")));
  EXPECT_THAT(error_of("", {"launch.master_port=http"}), HasSubstr("launch.master_port"));
  EXPECT_THAT(error_of(write("bad.yaml", "launch:\n  rnak: 1\n")),
              AllOf(HasSubstr("launch.rnak"), HasSubstr("world_size")));
}

TEST_F(ConfigFileTest, EngineSectionDefaultsAreTheFastPaths) {
  const EngineOptions e = load_config("").engine;
  EXPECT_EQ(e.state_table, StateTableMode::kAuto);
  EXPECT_EQ(e.table_backward, TableBackward::kManual);
  EXPECT_TRUE(e.fused_tb);
  EXPECT_EQ(e.optimizer, OptimizerKind::kFlat);
  EXPECT_TRUE(e.fused_adam);
  EXPECT_TRUE(e.plain_loops);
  EXPECT_TRUE(e.reuse_logprobs);
  EXPECT_EQ(e.blas_kernels, BlasKernels::kAuto);
  EXPECT_TRUE(e.malloc_tune);
  EXPECT_THAT(to_yaml(load_config("")),
              AllOf(HasSubstr("engine:"), HasSubstr("state_table: auto"),
                    HasSubstr("table_backward: manual"), HasSubstr("optimizer: flat"),
                    HasSubstr("blas_kernels: auto")));
}

TEST_F(ConfigFileTest, EngineSectionReadsWritesAndOverrides) {
  const std::string p = write("engine.yaml",
                              "engine:\n  state_table: off\n  table_backward: autograd\n"
                              "  fused_tb: false\n  optimizer: torch\n  fused_adam: false\n"
                              "  plain_loops: false\n  reuse_logprobs: false\n"
                              "  blas_kernels: off\n  malloc_tune: false\n");
  const ExperimentConfig c = load_config(p);
  EXPECT_EQ(c.engine.state_table, StateTableMode::kOff);
  EXPECT_EQ(c.engine.table_backward, TableBackward::kAutograd);
  EXPECT_FALSE(c.engine.fused_tb);
  EXPECT_EQ(c.engine.optimizer, OptimizerKind::kTorch);
  EXPECT_FALSE(c.engine.fused_adam);
  EXPECT_FALSE(c.engine.plain_loops);
  EXPECT_FALSE(c.engine.reuse_logprobs);
  EXPECT_EQ(c.engine.blas_kernels, BlasKernels::kOff);
  EXPECT_FALSE(c.engine.malloc_tune);
  // config.yaml round trip, then overrides back to the defaults.
  const std::string again = write("again.yaml", to_yaml(c));
  EXPECT_EQ(to_yaml(load_config(again)), to_yaml(c));
  const ExperimentConfig o =
      load_config(again, {"engine.state_table=auto", "engine.optimizer=flat",
                          "engine.table_backward=manual", "engine.plain_loops=true"});
  EXPECT_EQ(o.engine.state_table, StateTableMode::kAuto);
  EXPECT_EQ(o.engine.optimizer, OptimizerKind::kFlat);
  EXPECT_EQ(o.engine.table_backward, TableBackward::kManual);
  EXPECT_TRUE(o.engine.plain_loops);
}

TEST_F(ConfigFileTest, EngineBadValuesNameKeyFileAndChoices) {
  const std::string p = write("bad.yaml", "engine:\n  fused_tb: true\n  state_table: on\n");
  EXPECT_THAT(error_of(p), AllOf(HasSubstr(p), HasSubstr("line 3"),
                                 HasSubstr("engine.state_table must be one of: auto, off"),
                                 HasSubstr("got 'on'")));
  EXPECT_THAT(error_of(write("b.yaml", "engine:\n  plain_loops: 0.5\n")),
              AllOf(HasSubstr("b.yaml"), HasSubstr("engine.plain_loops must be a boolean")));
  const std::string ok = write("ok.yaml", "engine:\n  fused_tb: true\n");
  EXPECT_THAT(error_of(ok, {"engine.optimizer=sgd"}),
              AllOf(HasSubstr("--set engine.optimizer=sgd"), HasSubstr(ok),
                    HasSubstr("engine.optimizer must be one of: flat, torch")));
  EXPECT_THAT(error_of("", {"engine.table_backward=fast"}),
              HasSubstr("engine.table_backward must be one of: manual, autograd, got 'fast'"));
  EXPECT_THAT(error_of(write("k.yaml", "engine:\n  statetable: off\n")),
              AllOf(HasSubstr("unknown key 'engine.statetable'"), HasSubstr("state_table")));
}

// The `spawn:` section: defaults keep plain averaging; values read, written and overridden;
// impossible values and combinations named with their key and file.
TEST_F(ConfigFileTest, SpawnSectionDefaultsReadsAndRoundTrips) {
  const ExperimentConfig d = default_config();
  EXPECT_EQ(d.spawn.policy, SpawnPolicy::kAverageAll);
  EXPECT_EQ(d.spawn.strategy, SpawnStrategy::kMean);
  EXPECT_EQ(d.spawn.metric, SpawnMetric::kScore);
  EXPECT_TRUE(std::isinf(d.spawn.threshold) && d.spawn.threshold > 0);
  EXPECT_THAT(to_yaml(d), AllOf(HasSubstr("spawn:"), HasSubstr("policy: average_all"),
                                HasSubstr("threshold: .inf")));
  const std::string p = write("spawn.yaml",
                              "layout:\n  num_buffers: 1\n"
                              "spawn:\n  policy: selective\n  mode: async\n"
                              "  replacement_ratio: 0.5\n"
                              "  strategy: weighted_mean\n  momentum: 0.25\n"
                              "  threshold: -1.5\n  cooldown: 20\n  metric: modes_found\n"
                              "  random_strategies: true\n  epsilon_std: 0.125\n");
  const ExperimentConfig c = load_config(p);
  EXPECT_EQ(c.spawn.policy, SpawnPolicy::kSelective);
  EXPECT_EQ(c.spawn.mode, SpawnMode::kAsync);
  EXPECT_EQ(d.spawn.mode, SpawnMode::kSync);
  EXPECT_EQ(c.spawn.replacement_ratio, 0.5);
  EXPECT_EQ(c.spawn.strategy, SpawnStrategy::kWeightedMean);
  EXPECT_EQ(c.spawn.momentum, 0.25);
  EXPECT_EQ(c.spawn.threshold, -1.5);
  EXPECT_EQ(c.spawn.cooldown, 20);
  EXPECT_EQ(c.spawn.metric, SpawnMetric::kModesFound);
  EXPECT_TRUE(c.spawn.random_strategies);
  EXPECT_EQ(c.spawn.epsilon_std, 0.125);
  EXPECT_FALSE(d.spawn.random_strategies);
  const std::string again = write("again.yaml", to_yaml(c));
  EXPECT_EQ(to_yaml(load_config(again)), to_yaml(c));
  EXPECT_EQ(to_yaml(load_config(write("d.yaml", to_yaml(d)))), to_yaml(d)) << "inf round trip";
  const ExperimentConfig o =
      load_config(again, {"spawn.strategy=best_only", "spawn.threshold=.inf"});
  EXPECT_EQ(o.spawn.strategy, SpawnStrategy::kBestOnly);
  EXPECT_TRUE(std::isinf(o.spawn.threshold));
  // donor_pull's keys, the range from a file and from --set, and its round trip.
  const std::string pull = write("pull.yaml",
                                 "spawn:\n  policy: donor_pull\n  replacement_mode: worst_ratio\n"
                                 "  metric: neg_loss\n  age_range: [20, 30]\n  num_donors: 3\n");
  const ExperimentConfig q = load_config(pull);
  EXPECT_EQ(q.spawn.policy, SpawnPolicy::kDonorPull);
  EXPECT_EQ(q.spawn.replacement_mode, SpawnReplacementMode::kWorstRatio);
  EXPECT_EQ(q.spawn.age_range.min, 20);
  EXPECT_EQ(q.spawn.age_range.max, 30);
  EXPECT_EQ(q.spawn.num_donors, 3);
  EXPECT_THAT(to_yaml(q), HasSubstr("age_range: [20, 30]"));
  EXPECT_EQ(to_yaml(load_config(write("pull2.yaml", to_yaml(q)))), to_yaml(q));
  EXPECT_EQ(load_config(pull, {"spawn.age_range=[7,9]"}).spawn.age_range.max, 9);
}

TEST_F(ConfigFileTest, SpawnBadValuesAndCombinationsNameKeyAndFile) {
  struct Case {
    std::string yaml, key_and_value, rule;
  };
  const std::vector<Case> cases = {
      {"spawn:\n  strategy: median\n", "spawn.strategy = median",
       "mean, weighted_mean, best_only, reset_weights"},
      {"spawn:\n  metric: loss\n", "spawn.metric = loss", "score, neg_loss, modes_found"},
      {"spawn:\n  mode: later\n", "spawn.mode = later", "sync, async"},
      {"spawn:\n  policy: pull\n", "spawn.policy = pull", "average_all, selective, donor_pull"},
      {"spawn:\n  replacement_mode: oldest\n", "spawn.replacement_mode = oldest",
       "age, threshold, worst_ratio"},
      {"spawn:\n  age_range: [5, 2]\n", "spawn.age_range = [5, 2]", "1 <= min <= max"},
      {"spawn:\n  age_range: 5\n", "spawn.age_range", "a list of two integers [min, max]"},
      {"spawn:\n  num_donors: 0\n", "spawn.num_donors = 0", "must be >= 1"},
      {"transport:\n  backend: torch\nspawn:\n  policy: donor_pull\n", "spawn.policy = donor_pull",
       "needs transport.backend = mpi, got transport.backend = torch"},
      {"spawn:\n  replacement_ratio: 0\n", "spawn.replacement_ratio = 0", "(0, 1]"},
      {"spawn:\n  replacement_ratio: 1.5\n", "spawn.replacement_ratio = 1.5", "(0, 1]"},
      {"spawn:\n  momentum: -0.1\n", "spawn.momentum = -0.1", "[0, 1]"},
      {"spawn:\n  threshold: .nan\n", "spawn.threshold = nan", "must be a number"},
      {"spawn:\n  cooldown: -1\n", "spawn.cooldown = -1", "must be >= 0"},
      {"spawn:\n  temperature_std: -1\n", "spawn.temperature_std = -1", "must be >= 0"},
      {"spawn:\n  policy: selective\n", "spawn.metric = score",
       "needs a buffer manager (layout.num_buffers > 0)"},
      {"layout:\n  num_buffers: 1\ntrain:\n  average: gradients\n"
       "spawn:\n  policy: selective\n",
       "spawn.policy = selective", "needs train.average = models"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string p = write("bad" + std::to_string(i++) + ".yaml", c.yaml);
    EXPECT_THAT(error_of(p), AllOf(HasSubstr(p), HasSubstr(c.key_and_value), HasSubstr(c.rule)))
        << c.yaml;
  }
  // Without a buffer manager, selective works with a local metric.
  const std::string ok = write("ok.yaml", "spawn:\n  policy: selective\n  metric: neg_loss\n");
  EXPECT_EQ(load_config(ok).spawn.metric, SpawnMetric::kNegLoss);
  EXPECT_THAT(error_of(ok, {"spawn.metric=score"}),
              AllOf(HasSubstr("--set spawn.metric=score"), HasSubstr("needs a buffer manager")));
}

// buffer.remote_batch_size: refused beside remote_sample_fraction and without a manager,
// naming the key and the file; taken with a manager.
TEST_F(ConfigFileTest, RemoteBatchSizeNeedsAManagerAndNoFraction) {
  const std::string both = write("both.yaml",
                                 "layout:\n  num_buffers: 1\nbuffer:\n  remote_batch_size: 8\n  "
                                 "remote_sample_fraction: 0.5\n");
  EXPECT_THAT(error_of(both), AllOf(HasSubstr(both), HasSubstr("buffer.remote_batch_size = 8"),
                                    HasSubstr("buffer.remote_sample_fraction = 0.5"),
                                    HasSubstr("set one of them")));
  const std::string alone = write("alone.yaml", "buffer:\n  remote_batch_size: 8\n");
  EXPECT_THAT(error_of(alone), AllOf(HasSubstr(alone), HasSubstr("buffer.remote_batch_size = 8"),
                                     HasSubstr("needs a buffer manager")));
  EXPECT_THAT(error_of(alone, {"buffer.remote_batch_size=-1"}), HasSubstr("must be >= 0"));
  EXPECT_EQ(load_config(alone, {"layout.num_buffers=1"}).buffer.remote_batch_size, 8);
  EXPECT_EQ(load_config("", {}).buffer.remote_batch_size, 0);
}

// A continuous environment (env.name box): its keys load with torchgfn's box defaults, and
// what it does not support yet is refused at load time (before any communication), naming
// the key; the same values are accepted with a discrete environment.
TEST_F(ConfigFileTest, ContinuousEnvironmentKeysAndRefusals) {
  const std::string box = write("box.yaml",
                                "env:\n  name: box\n  delta: 0.2\n  n_components: 3\n"
                                "  max_concentration: 50\n");
  const ExperimentConfig c = load_config(box, {});
  const auto& o = c.env.get<core::BoxEnvOptions>();
  EXPECT_EQ(o.ndim, 2);
  EXPECT_EQ(o.delta, 0.2);
  EXPECT_EQ(o.epsilon, 1e-10);
  EXPECT_EQ(o.R0, 0.1);
  EXPECT_EQ(o.n_components, 3);
  EXPECT_EQ(o.min_concentration, 0.1);
  EXPECT_EQ(o.max_concentration, 50);
  EXPECT_THAT(to_yaml(c), AllOf(HasSubstr("name: box"), HasSubstr("delta: 0.2")));
  EXPECT_THAT(error_of(box, {"env.delta=0"}), HasSubstr("env.delta = 0 is invalid"));
  const char* refused[] = {"replay.kind=prioritized", "local_search.loops=2",
                           "train.loss=fm",           "train.epsilon=0.1",
                           "model.n_noisy_layers=1",  "spawn.random_strategies=true",
                           "engine.precision=bf16"};
  for (const std::string set : refused) {
    const std::string key = set.substr(0, set.find('='));
    EXPECT_THAT(error_of(box, {set}),
                AllOf(HasSubstr(key), HasSubstr("continuous environments (env.name box) do not "
                                                "support it yet")))
        << set;
    EXPECT_NO_THROW(load_config(box, {set, "env.name=hypergrid", "layout.num_buffers=1"})) << set;
  }
  // Box exports under torchgfn's Box estimator names (roles/trainer/model_export.h).
  EXPECT_TRUE(load_config(box, {"output.export=true"}).output.export_model);
  // Buffer managers are supported (float32 states), their remote replay too (backward
  // trajectories from the replayed states).
  EXPECT_NO_THROW(load_config(box, {"layout.num_buffers=1", "layout.coordinator=true"}));
  EXPECT_EQ(load_config(box, {"layout.num_buffers=1", "buffer.remote_batch_size=8"})
                .buffer.remote_batch_size,
            8);
  EXPECT_EQ(load_config(box, {"layout.num_buffers=1", "buffer.remote_sample_fraction=0.5"})
                .buffer.remote_sample_fraction,
            0.5);
}

// env.name box_polar loads its own keys (n_components_s0) with train_box.py's
// defaults and exports; train_box.py's train keys (gradient_clamp, temperature_start,
// lr_decay, loss_at_sampling_temperature) load with a continuous environment and are refused,
// naming the key, with a discrete one.
TEST_F(ConfigFileTest, BoxPolarKeysAndContinuousOnlyTrainKeys) {
  const std::string polar = write("polar.yaml", "env:\n  name: box_polar\n  n_components_s0: 3\n");
  const ExperimentConfig c = load_config(polar, {"train.gradient_clamp=10"});
  const auto& o = c.env.get<core::BoxPolarEnvOptions>();
  EXPECT_EQ(o.delta, 0.25);
  EXPECT_EQ(o.n_components, 2);
  EXPECT_EQ(o.n_components_s0, 3);
  EXPECT_EQ(o.max_concentration, 5.1);
  EXPECT_EQ(c.train.gradient_clamp, 10);
  // The polar Box exports under torchgfn's polar estimator names (BoxPFMLP, PFs0).
  EXPECT_TRUE(load_config(polar, {"output.export=true"}).output.export_model);
  for (const std::string set : {"train.gradient_clamp=10", "train.temperature_start=2",
                                "train.lr_decay=0.5", "train.loss_at_sampling_temperature=true"}) {
    EXPECT_NO_THROW(load_config(polar, {set})) << set;
    EXPECT_THAT(error_of(polar, {set, "env.name=hypergrid"}),
                AllOf(HasSubstr(set.substr(0, set.find('='))),
                      HasSubstr("only the continuous environments' learner supports it")))
        << set;
  }
}

TEST(ValidateConfig, NamesTheSource) {
  ExperimentConfig c;
  c.env.get<core::HyperGridOptions>().height = 1;
  try {
    validate_config(c, "my-source");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("my-source"), HasSubstr("env.height = 1")));
  }
}

}  // namespace
}  // namespace gfn::roles
