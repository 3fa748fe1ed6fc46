#include "runtime/config/config.h"

#include "runtime/gfn/env/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <map>
#include <type_traits>

namespace gfn::config {
namespace {

using C = ExperimentConfig;

// ---------------------------------------------------------------------------
// Validation rules: callables taking a field value and returning "" when it is
// acceptable, else what is wrong with it.

struct NoRule {
  template <class T>
  std::string operator()(const T&) const {
    return "";
  }
};

template <class N>
auto at_least(N bound) {
  return [bound](auto v) -> std::string {
    if (v >= bound) return "";
    return fmt::format("must be >= {}", bound);
  };
}

inline auto positive() {
  return [](auto v) -> std::string {
    if (v > 0) return "";  // false for NaN
    return "must be > 0";
  };
}

inline auto non_negative() {
  return [](double v) -> std::string {
    if (v >= 0.0) return "";
    return "must be >= 0";
  };
}

inline auto in_unit_interval() {
  return [](double v) -> std::string {
    if (v >= 0.0 && v <= 1.0) return "";
    return "must be in [0, 1]";
  };
}

inline auto one_of(std::vector<std::string> allowed) {
  return [allowed](const std::string& v) -> std::string {
    for (const auto& a : allowed) {
      if (v == a) return "";
    }
    return fmt::format("must be one of: {}", fmt::join(allowed, ", "));
  };
}

inline auto in_range(double lo, double hi) {
  return [lo, hi](double v) -> std::string {
    if (v >= lo && v <= hi) return "";
    return fmt::format("must be in [{}, {}]", lo, hi);
  };
}

inline auto in_range_open(double lo, double hi) {  // [lo, hi)
  return [lo, hi](double v) -> std::string {
    if (v >= lo && v < hi) return "";
    return fmt::format("must be in [{}, {})", lo, hi);
  };
}

// -1 (unset) or an integer >= bound (launch.rank, launch.world_size, ...).
inline auto unset_or_at_least(int bound) {
  return [bound](int v) -> std::string {
    if (v == -1 || v >= bound) return "";
    return fmt::format("must be -1 (unset) or >= {}", bound);
  };
}

// (0, 1] (spawn.replacement_ratio).
inline auto in_half_open_unit_interval() {
  return [](double v) -> std::string {
    if (v > 0.0 && v <= 1.0) return "";
    return "must be in (0, 1]";
  };
}

// 1 <= min <= max (spawn.age_range).
inline auto valid_age_range() {
  return [](const IntRange& r) -> std::string {
    if (r.min >= 1 && r.max >= r.min) return "";
    return "must be [min, max] with 1 <= min <= max";
  };
}

inline auto not_nan() {
  return [](double v) -> std::string { return std::isnan(v) ? "must be a number (or .inf)" : ""; };
}

// 0 (unset) or a TCP port (launch.master_port).
inline auto unset_or_port() {
  return [](int v) -> std::string {
    if (v >= 0 && v <= 65535) return "";
    return "must be 0 (unset) or a TCP port 1..65535";
  };
}

inline auto non_empty() {
  return [](const std::string& v) -> std::string { return v.empty() ? "must not be empty" : ""; };
}

// Rule of the enumerated options of options.h (not of engine:): an unknown name is
// refused as "key = value is invalid: must be one of: ..." like the other impossible
// values; the names come from the option's enum table.
struct AsInvalid {
  template <class T>
  std::string operator()(const T&) const {
    return "";
  }
};

// ---------------------------------------------------------------------------
// The registry: one entry per field.

template <class T>
std::string type_name() {
  if constexpr (std::is_enum_v<T>) {
    return "one of: " + enum_choices<T>();
  } else if constexpr (std::is_same_v<T, IntRange>) {
    return "a list of two integers [min, max]";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "a boolean (true/false)";
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    return "a non-negative integer";
  } else if constexpr (std::is_integral_v<T>) {
    return "an integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else {
    return "a string";
  }
}

struct Field {
  std::string key;      // "section.name"
  std::string section;  // "section"
  std::string name;     // "name"
  // Reads `node` into the field; returns false if it is not of the field's type.
  std::function<bool(C&, const YAML::Node&)> assign;
  std::function<void(YAML::Emitter&, const C&)> emit;
  std::function<std::string(const C&)> problem;  // "" if valid
  std::function<std::string(const C&)> show;     // the value as text
  std::string type;
  bool as_invalid = false;  // an unparsable value is reported as "key = value is invalid"
};

// A list of two integers; `--set` gives the text "[a, b]" as a scalar, parsed here.
bool read_range(const YAML::Node& node, IntRange& out) {
  YAML::Node seq = node;
  if (node.IsScalar()) {
    try {
      seq = YAML::Load(node.Scalar());
    } catch (const YAML::Exception&) {
      return false;
    }
  }
  if (!seq.IsSequence() || seq.size() != 2) return false;
  IntRange r;
  if (!YAML::convert<std::int64_t>::decode(seq[0], r.min) ||
      !YAML::convert<std::int64_t>::decode(seq[1], r.max)) {
    return false;
  }
  out = r;
  return true;
}

template <class S, class T, class Rule = NoRule>
Field field(const std::string& key, S C::*section, T S::*member, Rule rule = {}) {
  Field f;
  f.key = key;
  f.section = key.substr(0, key.find('.'));
  f.name = key.substr(key.find('.') + 1);
  f.type = type_name<T>();
  f.as_invalid = std::is_same_v<Rule, AsInvalid>;
  f.assign = [section, member](C& c, const YAML::Node& node) {
    if constexpr (std::is_same_v<T, IntRange>) {
      return read_range(node, (c.*section).*member);
    }
    if (!node.IsScalar()) return false;
    T value{};
    if constexpr (std::is_enum_v<T>) {
      if (!parse_enum(node.Scalar(), value)) return false;
      (c.*section).*member = value;
      return true;
    }
    if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
      if (!node.Scalar().empty() && node.Scalar()[0] == '-') return false;
    }
    if constexpr (!std::is_enum_v<T> && !std::is_same_v<T, IntRange>) {
      if (!YAML::convert<T>::decode(node, value)) return false;
      (c.*section).*member = value;
    }
    return true;
  };
  f.emit = [section, member, name = f.name](YAML::Emitter& out, const C& c) {
    const T& value = (c.*section).*member;
    out << YAML::Key << name << YAML::Value;
    if constexpr (std::is_floating_point_v<T>) {
      // Shortest text that reads back to the same double (0.1, not 0.10000000000000001).
      if (std::isfinite(value)) {
        out << fmt::format("{}", value);
        return;
      }
    }
    if constexpr (std::is_enum_v<T>) {
      out << enum_name(value);
    } else if constexpr (std::is_same_v<T, IntRange>) {
      out << YAML::Flow << YAML::BeginSeq << value.min << value.max << YAML::EndSeq;
    } else {
      out << value;
    }
  };
  f.problem = [section, member, rule](const C& c) -> std::string {
    return rule((c.*section).*member);
  };
  f.show = [section, member](const C& c) -> std::string {
    if constexpr (std::is_enum_v<T>) {
      return enum_name((c.*section).*member);
    } else if constexpr (std::is_same_v<T, IntRange>) {
      return fmt::format("[{}, {}]", ((c.*section).*member).min, ((c.*section).*member).max);
    } else {
      return fmt::format("{}", (c.*section).*member);
    }
  };
  return f;
}

const std::vector<Field>& registry() {
  static const std::vector<Field> kFields = {
      field("layout.num_buffers", &C::layout, &LayoutOptions::num_buffers, at_least(0)),
      field("layout.num_agent_groups", &C::layout, &LayoutOptions::num_agent_groups, at_least(1)),
      field("layout.coordinator", &C::layout, &LayoutOptions::coordinator),
      field("layout.placement", &C::layout, &LayoutOptions::placement, AsInvalid{}),
      field("transport.backend", &C::transport, &TransportConfig::backend, AsInvalid{}),
      field("transport.max_message_bytes", &C::transport, &TransportConfig::max_message_bytes,
            positive()),
      field("transport.timeout_s", &C::transport, &TransportConfig::timeout_s, positive()),
      field("launch.rank", &C::launch, &LaunchOptions::rank, unset_or_at_least(0)),
      field("launch.world_size", &C::launch, &LaunchOptions::world_size, unset_or_at_least(1)),
      field("launch.local_rank", &C::launch, &LaunchOptions::local_rank, unset_or_at_least(0)),
      field("launch.local_world_size", &C::launch, &LaunchOptions::local_world_size,
            unset_or_at_least(1)),
      field("launch.master_addr", &C::launch, &LaunchOptions::master_addr),
      field("launch.master_port", &C::launch, &LaunchOptions::master_port, unset_or_port()),
      field("env.name", &C::env, &EnvOptions::name, one_of(core::environment_names())),
      field("env.ndim", &C::env, &EnvOptions::ndim, at_least(1)),
      field("env.height", &C::env, &EnvOptions::height, at_least(2)),
      field("env.reward", &C::env, &EnvOptions::reward, AsInvalid{}),
      field("env.R0", &C::env, &EnvOptions::R0, non_negative()),
      field("env.R1", &C::env, &EnvOptions::R1, non_negative()),
      field("env.R2", &C::env, &EnvOptions::R2, non_negative()),
      field("env.preprocessor", &C::env, &EnvOptions::preprocessor, AsInvalid{}),
      field("env.alpha", &C::env, &EnvOptions::alpha),
      field("env.word_size", &C::env, &EnvOptions::word_size, at_least(1)),
      field("env.seq_size", &C::env, &EnvOptions::seq_size, at_least(1)),
      field("env.n_modes", &C::env, &EnvOptions::n_modes, at_least(1)),
      field("env.beta", &C::env, &EnvOptions::beta),
      field("env.mode_threshold", &C::env, &EnvOptions::mode_threshold, at_least(-1)),
      field("env.modes_seed", &C::env, &EnvOptions::modes_seed),
      field("model.hidden_dim", &C::model, &ModelOptions::hidden_dim, at_least(1)),
      field("model.n_hidden", &C::model, &ModelOptions::n_hidden, at_least(1)),
      field("model.tied", &C::model, &ModelOptions::tied),
      field("model.uniform_pb", &C::model, &ModelOptions::uniform_pb),
      field("model.n_noisy_layers", &C::model, &ModelOptions::n_noisy_layers, at_least(0)),
      field("model.noisy_std_init", &C::model, &ModelOptions::noisy_std_init, positive()),
      field("model.init_from", &C::model, &ModelOptions::init_from),
      field("train.loss", &C::train, &TrainOptions::loss, AsInvalid{}),
      field("train.subtb_weighting", &C::train, &TrainOptions::subtb_weighting, AsInvalid{}),
      field("train.subtb_lambda", &C::train, &TrainOptions::subtb_lambda, positive()),
      field("train.fm_alpha", &C::train, &TrainOptions::fm_alpha, non_negative()),
      field("train.batch_size", &C::train, &TrainOptions::batch_size, positive()),
      field("train.n_trajectories", &C::train, &TrainOptions::n_trajectories, positive()),
      field("train.n_iterations", &C::train, &TrainOptions::n_iterations, at_least(0)),
      field("train.lr", &C::train, &TrainOptions::lr, positive()),
      field("train.lr_logz", &C::train, &TrainOptions::lr_logz, positive()),
      field("train.weight_decay", &C::train, &TrainOptions::weight_decay, non_negative()),
      field("train.average_every", &C::train, &TrainOptions::average_every, at_least(1)),
      field("train.average", &C::train, &TrainOptions::average, AsInvalid{}),
      field("train.epsilon", &C::train, &TrainOptions::epsilon, in_unit_interval()),
      field("train.temperature", &C::train, &TrainOptions::temperature, positive()),
      field("train.seed", &C::train, &TrainOptions::seed),
      field("train.num_threads", &C::train, &TrainOptions::num_threads, at_least(1)),
      field("buffer.capacity", &C::buffer, &BufferOptions::capacity, at_least(1)),
      field("buffer.remote_buffer_freq", &C::buffer, &BufferOptions::remote_buffer_freq,
            at_least(1)),
      field("buffer.submit_mode", &C::buffer, &BufferOptions::submit_mode, AsInvalid{}),
      field("buffer.payload", &C::buffer, &BufferOptions::payload, AsInvalid{}),
      field("buffer.store", &C::buffer, &BufferOptions::store),
      field("buffer.baseline_filter", &C::buffer, &BufferOptions::baseline_filter),
      field("buffer.baseline_refresh_after", &C::buffer, &BufferOptions::baseline_refresh_after,
            at_least(1)),
      field("buffer.baseline", &C::buffer, &BufferOptions::baseline, AsInvalid{}),
      field("buffer.baseline_percentile", &C::buffer, &BufferOptions::baseline_percentile,
            in_range(0.0, 100.0)),
      field("buffer.baseline_ema_decay", &C::buffer, &BufferOptions::baseline_ema_decay,
            in_range_open(0.0, 1.0)),
      field("buffer.baseline_aggregate", &C::buffer, &BufferOptions::baseline_aggregate,
            AsInvalid{}),
      field("buffer.baseline_sync", &C::buffer, &BufferOptions::baseline_sync),
      field("buffer.baseline_report_interval", &C::buffer, &BufferOptions::baseline_report_interval,
            at_least(1)),
      field("buffer.baseline_tolerance", &C::buffer, &BufferOptions::baseline_tolerance,
            non_negative()),
      field("buffer.score_w_retained", &C::buffer, &BufferOptions::score_w_retained,
            non_negative()),
      field("buffer.score_w_novelty", &C::buffer, &BufferOptions::score_w_novelty, non_negative()),
      field("buffer.score_w_reward", &C::buffer, &BufferOptions::score_w_reward, non_negative()),
      field("buffer.score_w_mode_bonus", &C::buffer, &BufferOptions::score_w_mode_bonus,
            non_negative()),
      field("buffer.score_p_norm", &C::buffer, &BufferOptions::score_p_norm, positive()),
      field("buffer.score_novelty", &C::buffer, &BufferOptions::score_novelty, AsInvalid{}),
      field("buffer.score_cdist_max_bytes", &C::buffer, &BufferOptions::score_cdist_max_bytes,
            at_least(std::int64_t{1})),
      field("buffer.score_ema_decay", &C::buffer, &BufferOptions::score_ema_decay,
            in_range_open(0.0, 1.0)),
      field("buffer.drain_timeout_s", &C::buffer, &BufferOptions::drain_timeout_s, positive()),
      field("buffer.receive_wait", &C::buffer, &BufferOptions::receive_wait, AsInvalid{}),
      field("buffer.population_stats_every", &C::buffer, &BufferOptions::population_stats_every,
            at_least(0)),
      field("buffer.remote_sample_fraction", &C::buffer, &BufferOptions::remote_sample_fraction,
            in_unit_interval()),
      field("buffer.remote_sampler", &C::buffer, &BufferOptions::remote_sampler, AsInvalid{}),
      field("buffer.remote_sample_wait_s", &C::buffer, &BufferOptions::remote_sample_wait_s,
            non_negative()),
      field("buffer.samples_per_insert", &C::buffer, &BufferOptions::samples_per_insert,
            non_negative()),
      field("buffer.min_size_to_sample", &C::buffer, &BufferOptions::min_size_to_sample,
            at_least(std::int64_t{1})),
      field("buffer.rate_error_buffer", &C::buffer, &BufferOptions::rate_error_buffer,
            non_negative()),
      field("replay.kind", &C::replay, &ReplayOptions::kind, AsInvalid{}),
      field("replay.capacity", &C::replay, &ReplayOptions::capacity, at_least(std::int64_t{1})),
      field("replay.fraction", &C::replay, &ReplayOptions::fraction, in_unit_interval()),
      field("replay.cutoff", &C::replay, &ReplayOptions::cutoff),
      field("replay.p_norm", &C::replay, &ReplayOptions::p_norm, positive()),
      field("replay.warmup", &C::replay, &ReplayOptions::warmup, at_least(std::int64_t{0})),
      field("validation.enabled", &C::validation, &ValidationOptions::enabled),
      field("validation.interval", &C::validation, &ValidationOptions::interval, at_least(1)),
      field("validation.n_samples", &C::validation, &ValidationOptions::n_samples, at_least(1)),
      field("validation.test_per_mode", &C::validation, &ValidationOptions::test_per_mode,
            at_least(0)),
      field("validation.logp_samples", &C::validation, &ValidationOptions::logp_samples,
            at_least(0)),
      field("spawn.policy", &C::spawn, &SpawnOptions::policy, AsInvalid{}),
      field("spawn.mode", &C::spawn, &SpawnOptions::mode, AsInvalid{}),
      field("spawn.replacement_ratio", &C::spawn, &SpawnOptions::replacement_ratio,
            in_half_open_unit_interval()),
      field("spawn.strategy", &C::spawn, &SpawnOptions::strategy, AsInvalid{}),
      field("spawn.momentum", &C::spawn, &SpawnOptions::momentum, in_unit_interval()),
      field("spawn.threshold", &C::spawn, &SpawnOptions::threshold, not_nan()),
      field("spawn.cooldown", &C::spawn, &SpawnOptions::cooldown, at_least(std::int64_t{0})),
      field("spawn.metric", &C::spawn, &SpawnOptions::metric, AsInvalid{}),
      field("spawn.random_strategies", &C::spawn, &SpawnOptions::random_strategies),
      field("spawn.epsilon_std", &C::spawn, &SpawnOptions::epsilon_std, non_negative()),
      field("spawn.temperature_std", &C::spawn, &SpawnOptions::temperature_std, non_negative()),
      field("spawn.replacement_mode", &C::spawn, &SpawnOptions::replacement_mode, AsInvalid{}),
      field("spawn.age_range", &C::spawn, &SpawnOptions::age_range, valid_age_range()),
      field("spawn.num_donors", &C::spawn, &SpawnOptions::num_donors, at_least(std::int64_t{1})),
      field("spawn.noisy_std_init_std", &C::spawn, &SpawnOptions::noisy_std_init_std,
            non_negative()),
      field("output.dir", &C::output, &OutputOptions::dir, non_empty()),
      field("output.log_every", &C::output, &OutputOptions::log_every, at_least(1)),
      field("output.plots", &C::output, &OutputOptions::plots),
      field("output.progress", &C::output, &OutputOptions::progress, AsInvalid{}),
      field("output.progress_every_s", &C::output, &OutputOptions::progress_every_s, positive()),
      field("output.export", &C::output, &OutputOptions::export_model),
      field("checkpoint.every", &C::checkpoint, &CheckpointOptions::every,
            at_least(std::int64_t{0})),
      field("checkpoint.on_signal", &C::checkpoint, &CheckpointOptions::on_signal),
      field("checkpoint.keep", &C::checkpoint, &CheckpointOptions::keep, at_least(1)),
      field("engine.state_table", &C::engine, &EngineOptions::state_table),
      field("engine.table_backward", &C::engine, &EngineOptions::table_backward),
      field("engine.fused_tb", &C::engine, &EngineOptions::fused_tb),
      field("engine.optimizer", &C::engine, &EngineOptions::optimizer),
      field("engine.fused_adam", &C::engine, &EngineOptions::fused_adam),
      field("engine.plain_loops", &C::engine, &EngineOptions::plain_loops),
      field("engine.reuse_logprobs", &C::engine, &EngineOptions::reuse_logprobs),
      field("engine.blas_kernels", &C::engine, &EngineOptions::blas_kernels),
      field("engine.malloc_tune", &C::engine, &EngineOptions::malloc_tune),
  };
  return kFields;
}

const Field* find_field(const std::string& key) {
  for (const auto& f : registry()) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

// Keys that were renamed: old key -> what to write instead. Refused with that hint, so an
// old config fails loudly instead of being half-applied.
const std::map<std::string, std::string>& renamed_keys() {
  static const std::map<std::string, std::string> renamed = {
      {"buffer.remote_sample_prioritized",
       "buffer.remote_sampler: prioritized | uniform (true was prioritized, false uniform)"},
  };
  return renamed;
}

// Throws ConfigError if `key` is a renamed key (`where` says where it was written).
void refuse_renamed(const std::string& key, const std::string& where) {
  const auto it = renamed_keys().find(key);
  if (it != renamed_keys().end()) {
    throw ConfigError(fmt::format("{}: key '{}' was renamed: use {}", where, key, it->second));
  }
}

std::vector<std::string> sections() {
  std::vector<std::string> out;
  for (const auto& f : registry()) {
    if (out.empty() || out.back() != f.section) out.push_back(f.section);
  }
  return out;
}

std::vector<std::string> keys_of(const std::string& section) {
  std::vector<std::string> out;
  for (const auto& f : registry()) {
    if (f.section == section) out.push_back(f.name);
  }
  return out;
}

std::string file_where(const std::string& path, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return fmt::format("config file '{}'", path);
  return fmt::format("config file '{}' line {}", path, mark.line + 1);
}

std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsNull()) return "(empty)";
  return node.IsMap() ? "(a mapping)" : "(a sequence)";
}

/// A section or key name: a plain scalar; a complex key ("? {a: b}") or an empty one is
/// refused naming the file and line.
std::string key_name(const std::string& path, const YAML::Node& key) {
  if (!key.IsScalar()) {
    throw ConfigError(fmt::format("{}: a section or key name must be a plain name, got {}",
                                  file_where(path, key), scalar_text(key)));
  }
  return key.Scalar();
}

// Where each key's value came from, for error messages.
using Origins = std::map<std::string, std::string>;

void apply_file(C& config, const std::string& path, Origins& origins) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(fmt::format("cannot open config file '{}'", path));
  } catch (const YAML::ParserException& e) {
    throw ConfigError(fmt::format("config file '{}' line {}: YAML syntax error: {}", path,
                                  e.mark.line + 1, e.msg));
  }
  if (root.IsNull()) return;  // empty file: defaults
  if (!root.IsMap()) {
    throw ConfigError(fmt::format("{}: expected a mapping of sections ({}) at the top level",
                                  file_where(path, root), fmt::join(sections(), ", ")));
  }
  for (const auto& sec : root) {
    const std::string section = key_name(path, sec.first);
    if (keys_of(section).empty()) {
      throw ConfigError(fmt::format("{}: unknown section '{}' (known sections: {})",
                                    file_where(path, sec.first), section,
                                    fmt::join(sections(), ", ")));
    }
    if (sec.second.IsNull()) continue;
    if (!sec.second.IsMap()) {
      throw ConfigError(fmt::format("{}: section '{}' must be a mapping of keys, got {}",
                                    file_where(path, sec.second), section,
                                    scalar_text(sec.second)));
    }
    for (const auto& kv : sec.second) {
      const std::string key = section + "." + key_name(path, kv.first);
      const Field* f = find_field(key);
      if (f == nullptr) {
        refuse_renamed(key, file_where(path, kv.first));
        throw ConfigError(fmt::format("{}: unknown key '{}' (keys of '{}': {})",
                                      file_where(path, kv.first), key, section,
                                      fmt::join(keys_of(section), ", ")));
      }
      if (!f->assign(config, kv.second)) {
        if (f->as_invalid) {
          throw ConfigError(fmt::format("{}: {} = {} is invalid: must be {}",
                                        file_where(path, kv.second), key, scalar_text(kv.second),
                                        f->type));
        }
        throw ConfigError(fmt::format("{}: {} must be {}, got '{}'", file_where(path, kv.second),
                                      key, f->type, scalar_text(kv.second)));
      }
      origins[key] = file_where(path, kv.second);
    }
  }
}

void apply_override(C& config, const std::string& path, const std::string& assignment,
                    Origins& origins) {
  const std::string context =
      path.empty() ? std::string("no config file") : fmt::format("config file '{}'", path);
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError(
        fmt::format("--set '{}': expected section.key=value ({})", assignment, context));
  }
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const Field* f = find_field(key);
  if (f == nullptr) {
    refuse_renamed(key, fmt::format("--set {} ({})", assignment, context));
    throw ConfigError(fmt::format("--set {}: unknown key '{}' ({}; known keys: {})", assignment,
                                  key, context, fmt::join(config_keys(), ", ")));
  }
  if (!f->assign(config, YAML::Node(value))) {
    if (f->as_invalid) {
      throw ConfigError(fmt::format("--set {} ({}): {} = {} is invalid: must be {}", assignment,
                                    context, key, value, f->type));
    }
    throw ConfigError(fmt::format("--set {}: {} must be {}, got '{}' ({})", assignment, key,
                                  f->type, value, context));
  }
  origins[key] = fmt::format("--set {} ({})", assignment, context);
}

// Rules between two keys: "" when the combination is valid, else what is wrong; `key` is
// the key the message names (its origin is reported).
struct CrossRule {
  std::string key;
  std::function<std::string(const C&)> problem;
};

const std::vector<CrossRule>& cross_rules() {
  static const std::vector<CrossRule> kRules = {
      {"spawn.metric",
       [](const C& c) -> std::string {
         // The metric is used by selective, and by donor_pull unless it replaces by age.
         const bool uses_metric = c.spawn.policy == SpawnPolicy::kSelective ||
                                  (c.spawn.policy == SpawnPolicy::kDonorPull &&
                                   c.spawn.replacement_mode != SpawnReplacementMode::kAge);
         if (!uses_metric || c.spawn.metric != SpawnMetric::kScore) return "";
         const char* policy = enum_name(c.spawn.policy);
         if (c.layout.num_buffers == 0) {
           return fmt::format(
               "spawn.policy = {} with metric score needs a buffer manager "
               "(layout.num_buffers > 0); use metric neg_loss or modes_found without one",
               policy);
         }
         if (c.buffer.submit_mode == SubmitMode::kFireAndForget) {
           return fmt::format(
               "spawn.policy = {} with metric score needs SCORE replies "
               "(buffer.submit_mode sync or async, not fire_and_forget)",
               policy);
         }
         return "";
       }},
      {"spawn.policy",
       [](const C& c) -> std::string {
         if (c.spawn.policy == SpawnPolicy::kAverageAll ||
             c.train.average == TrainAverage::kModels) {
           return "";
         }
         return "needs train.average = models (averaged gradients keep every agent identical)";
       }},
      {"spawn.policy",
       [](const C& c) -> std::string {
         if (c.spawn.policy != SpawnPolicy::kDonorPull ||
             c.transport.backend == TransportBackend::kMpi)
           return "";
         return fmt::format(
             "needs transport.backend = mpi, got transport.backend = {}: donor_pull reads the "
             "donors' parameters from MPI one-sided windows (MPI_Win_create, MPI_Get), which "
             "the torch backend does not have; use spawn.policy = selective with spawn.mode = "
             "async there",
             enum_name(c.transport.backend));
       }},
  };
  return kRules;
}

void validate_with_origins(const C& config, const Origins& origins, const std::string& fallback) {
  const auto where_of = [&](const std::string& key) {
    auto it = origins.find(key);
    std::string where = it != origins.end() ? it->second : fallback;
    return where.empty() ? std::string("configuration") : where;
  };
  for (const auto& f : registry()) {
    const std::string problem = f.problem(config);
    if (problem.empty()) continue;
    throw ConfigError(
        fmt::format("{}: {} = {} is invalid: {}", where_of(f.key), f.key, f.show(config), problem));
  }
  for (const auto& rule : cross_rules()) {
    const std::string problem = rule.problem(config);
    if (problem.empty()) continue;
    throw ConfigError(fmt::format("{}: {} = {} is invalid: {}", where_of(rule.key), rule.key,
                                  find_field(rule.key)->show(config), problem));
  }
}

}  // namespace

ExperimentConfig default_config() {
  ExperimentConfig config;
  validate_config(config, "defaults");
  return config;
}

ExperimentConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  ExperimentConfig config;
  Origins origins;
  if (!path.empty()) apply_file(config, path, origins);
  for (const auto& assignment : overrides) apply_override(config, path, assignment, origins);
  validate_with_origins(
      config, origins,
      path.empty() ? std::string("defaults") : fmt::format("config file '{}' (default)", path));
  config.source_file = path;
  return config;
}

void validate_config(const ExperimentConfig& config, const std::string& source) {
  validate_with_origins(config, {}, source.empty() ? config.source_file : source);
}

std::string to_yaml(const ExperimentConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const auto& section : sections()) {
    out << YAML::Key << section << YAML::Value << YAML::BeginMap;
    for (const auto& f : registry()) {
      if (f.section == section) f.emit(out, config);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::vector<std::string> config_keys() {
  std::vector<std::string> out;
  for (const auto& f : registry()) out.push_back(f.key);
  return out;
}

}  // namespace gfn::config
