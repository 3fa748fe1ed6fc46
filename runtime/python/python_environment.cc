#include "runtime/python/python_environment.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "runtime/config/schema.h"
#include "runtime/gfn/env/environment.h"
#include "runtime/gfn/env/registry.h"
#include "runtime/gfn/env/reward_model.h"
#include "runtime/gfn/preprocessors.h"
#include "runtime/python/python_interpreter.h"

namespace gfn::python {
namespace {

using config::ConfigError;

/// env.options as keyword arguments, each value read as YAML reads it (yaml.safe_load:
/// "8" -> 8, "0.5" -> 0.5, "true" -> True, "original" -> 'original').
py::dict keyword_arguments(const config::OptionMap& options) {
  py::dict kwargs;
  if (options.empty()) return kwargs;
  const py::object safe_load = py::module_::import("yaml").attr("safe_load");
  for (const auto& [key, value] : options) kwargs[key.c_str()] = safe_load(value);
  return kwargs;
}

/// An attribute's value: torchgfn has both properties (all_states) and methods (true_dist(),
/// log_partition()) for what it computes once; a callable is called without arguments.
py::object value_of(const py::object& attribute) {
  return PyCallable_Check(attribute.ptr()) && !to_tensor(attribute) ? attribute() : attribute;
}

/// "[128, 3]", "[*, 2]" (-1: any size).
std::string dims(at::IntArrayRef shape) {
  std::vector<std::string> parts;
  for (auto d : shape) parts.push_back(d < 0 ? "*" : std::to_string(d));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

class PythonEnvironment final : public core::Environment {
 public:
  explicit PythonEnvironment(const core::EnvOptions& options)
      : spec_(options.python), name_(options.name) {
    const Gil gil;
    std::string failure;
    try {
      construct(options);
      return;
    } catch (py::error_already_set& e) {
      failure = fmt::format("env.python '{}': {}", spec_, traceback_text(e));
    } catch (const std::exception& e) {  // fail(), pybind11 cast_error, c10::Error
      failure = e.what();
    }
    py_.reset();  // under the GIL: the destructor does not run for a constructor that throws
    throw ConfigError(failure);
  }

  ~PythonEnvironment() override {
    if (!Py_IsInitialized()) {
      (void)py_.release();  // the interpreter is gone: nothing to release
      return;
    }
    const Gil gil;
    py_.reset();
  }

  std::string name() const override { return name_; }
  std::int64_t state_dim() const override { return dim_; }
  std::int64_t n_actions() const override { return n_actions_; }
  bool every_state_terminates() const override { return every_state_terminates_; }

  at::Tensor initial_states(std::int64_t n) const override {
    return s0_.unsqueeze(0).expand({n, dim_}).contiguous();
  }
  at::Tensor forward_masks(const at::Tensor& states) const override {
    const Gil gil;
    return result("forward_masks", call("forward_masks", py_->forward_masks, states), at::kBool,
                  {states.size(0), n_actions_});
  }
  at::Tensor backward_masks(const at::Tensor& states) const override {
    const Gil gil;
    return result("backward_masks", call("backward_masks", py_->backward_masks, states), at::kBool,
                  {states.size(0), n_actions_ - 1});
  }
  at::Tensor step_unchecked(const at::Tensor& states, const at::Tensor& actions) const override {
    const Gil gil;
    return result("step", call("step", py_->step, states, actions), at::kLong,
                  {states.size(0), dim_});
  }
  at::Tensor backward_step_unchecked(const at::Tensor& states,
                                     const at::Tensor& actions) const override {
    const Gil gil;
    return result("backward_step", call("backward_step", py_->backward_step, states, actions),
                  at::kLong, {states.size(0), dim_});
  }
  at::Tensor log_reward(const at::Tensor& states) const override {
    check_states(states, "log_reward");
    const Gil gil;
    return floating("log_reward", call("log_reward", py_->log_reward, states), states.size(0))
        .to(at::kFloat);
  }

  std::unique_ptr<core::Preprocessor> make_preprocessor(
      core::PreprocessorKind kind) const override {
    switch (kind) {
      case core::PreprocessorKind::kKHot:
        if (khot_height_ < 1) break;
        return std::make_unique<core::KHotPreprocessor>(dim_, khot_height_, khot_min_value_);
      case core::PreprocessorKind::kIdentity:
        return std::make_unique<core::IdentityPreprocessor>(dim_);
      case core::PreprocessorKind::kOneHot:
        if (!enumerable_) break;
        return std::make_unique<core::OneHotPreprocessor>(*this);
    }
    throw std::invalid_argument(fmt::format(
        "env.preprocessor: the Python environment {} has no such preprocessor (khot needs its "
        "attribute khot_height, onehot its enumeration; identity always works)",
        class_name_));
  }

  bool enumerable() const override { return enumerable_; }
  std::int64_t n_states() const override { return all_states().size(0); }
  const at::Tensor& all_states() const override { return enumeration("all_states").all; }
  at::Tensor state_indices(const at::Tensor& states) const override {
    if (!enumerable_) not_enumerable("state_indices");
    const Gil gil;
    return result("get_states_indices", call("get_states_indices", py_->states_indices, states),
                  at::kLong, {states.size(0)});
  }
  std::int64_t n_terminating_states() const override { return terminating_states().size(0); }
  const at::Tensor& terminating_states() const override {
    return enumeration("terminating_states").terminating;
  }
  at::Tensor terminating_state_indices(const at::Tensor& states) const override {
    if (!enumerable_) not_enumerable("terminating_state_indices");
    if (py_->terminating_states_indices.is_none()) return state_indices(states);
    const Gil gil;
    return result("get_terminating_states_indices",
                  call("get_terminating_states_indices", py_->terminating_states_indices, states),
                  at::kLong, {states.size(0)});
  }
  const at::Tensor& true_distribution() const override {
    return enumeration("true_distribution").true_dist;
  }
  double log_partition() const override { return enumeration("log_partition").log_z; }

  std::int64_t n_modes() const override { return n_modes_; }
  at::Tensor is_mode(const at::Tensor& states) const override {
    if (py_->is_mode.is_none()) return Environment::is_mode(states);
    const Gil gil;
    return result("is_mode", call("is_mode", py_->is_mode, states), at::kBool, {states.size(0)});
  }
  at::Tensor mode_hits(const at::Tensor& states) const override {
    if (py_->mode_hits.is_none()) return Environment::mode_hits(states);
    const Gil gil;
    return result("mode_hits", call("mode_hits", py_->mode_hits, states), at::kLong, {-1});
  }
  std::optional<double> mode_probability() const override { return mode_probability_; }

 private:
  /// The Python objects, released under the GIL.
  struct Handles {
    py::object object, forward_masks, backward_masks, step, backward_step, log_reward;
    py::object states_indices, terminating_states_indices, is_mode, mode_hits;  // or None
  };
  struct Enumeration {
    at::Tensor all, terminating, true_dist;
    double log_z = 0.0;
  };

  [[noreturn]] void fail(const std::string& member, const std::string& problem) const {
    throw std::runtime_error(
        fmt::format("env.python '{}': {}.{} {}", spec_, class_name_, member, problem));
  }

  /// fn(tensors...) with the GIL held; a Python exception becomes fail(member, traceback).
  template <class... Tensors>
  py::object call(const char* member, const py::object& fn, const Tensors&... tensors) const {
    try {
      return fn(to_python(tensors)...);
    } catch (py::error_already_set& e) {
      fail(member, "raised:\n" + traceback_text(e));
    }
  }

  /// `out` as a contiguous tensor of `dtype` and `shape` (-1: any size), else fail().
  at::Tensor result(const char* member, const py::object& out, at::ScalarType dtype,
                    std::vector<std::int64_t> shape) const {
    const auto t = to_tensor(out);
    const std::string expected = fmt::format("{} {}", c10::toString(dtype), dims(shape));
    if (!t)
      fail(member,
           fmt::format("must return a torch.Tensor {}, got a {}", expected, type_name(out)));
    bool ok = t->scalar_type() == dtype && t->dim() == static_cast<std::int64_t>(shape.size());
    for (std::size_t d = 0; ok && d < shape.size(); ++d) {
      ok = shape[d] < 0 || t->size(static_cast<std::int64_t>(d)) == shape[d];
    }
    if (!ok) {
      fail(member, fmt::format("must return {}, got {} {}", expected,
                               c10::toString(t->scalar_type()), core::shape_string(*t)));
    }
    return t->contiguous();
  }

  /// `out` as a floating tensor [n] (n < 0: any), converted to nothing else; else fail().
  at::Tensor floating(const char* member, const py::object& out, std::int64_t n) const {
    const auto t = to_tensor(out);
    if (!t || !at::isFloatingType(t->scalar_type()) || t->dim() != 1 ||
        (n >= 0 && t->size(0) != n)) {
      fail(member, fmt::format("must return a floating torch.Tensor {}, got {}", dims({n}),
                               t ? std::string(c10::toString(t->scalar_type())) + " " +
                                       core::shape_string(*t)
                                 : "a " + type_name(out)));
    }
    return t->contiguous();
  }

  /// `value` as T (an int, a float, a bool, a sequence of ints), else fail() saying `what`.
  template <class T>
  T as(const char* member, const py::object& value, const char* what) const {
    try {
      return value.cast<T>();
    } catch (const py::cast_error&) {
      fail(member, fmt::format("must be {}, got a {} ({})", what, type_name(value),
                               py::repr(value).cast<std::string>()));
    }
  }

  /// The attribute `member`, or None when the object has none.
  py::object optional(const char* member) const {
    if (!py::hasattr(py_->object, member)) return py::none();
    return py_->object.attr(member);
  }
  /// The method `member`; fail() when it has none.
  py::object method(const char* member) const {
    py::object m = optional(member);
    if (m.is_none() || !PyCallable_Check(m.ptr())) {
      fail(member,
           "is missing: a Python environment needs it (docs/environments.md \"Python "
           "environments\")");
    }
    return m;
  }

  void construct(const core::EnvOptions& options);
  void read_description();
  void build_enumeration() const;
  const Enumeration& enumeration(const char* what) const {
    if (!enumerable_) not_enumerable(what);
    std::call_once(enumeration_once_, [this] {
      const Gil gil;
      build_enumeration();
    });
    return enumeration_;
  }

  std::string spec_, name_, class_name_;
  std::unique_ptr<Handles> py_ = std::make_unique<Handles>();
  std::int64_t dim_ = 0, n_actions_ = 0, khot_height_ = 0, khot_min_value_ = 0, n_modes_ = 0;
  bool every_state_terminates_ = false, enumerable_ = false;
  at::Tensor s0_;
  std::optional<double> mode_probability_;
  mutable std::once_flag enumeration_once_;
  mutable Enumeration enumeration_;
};

void PythonEnvironment::construct(const core::EnvOptions& options) {
  const py::object cls = load(spec_, "env.python");
  class_name_ =
      py::hasattr(cls, "__name__") ? py::str(cls.attr("__name__")).cast<std::string>() : spec_;
  try {
    py_->object = cls(**keyword_arguments(options.options));
  } catch (py::error_already_set& e) {
    throw ConfigError(fmt::format("env.python '{}': {}(**env.options) raised:\n{}", spec_,
                                  class_name_, traceback_text(e)));
  }
  read_description();
  py_->forward_masks = method("forward_masks");
  py_->backward_masks = method("backward_masks");
  py_->step = method("step");
  py_->backward_step = method("backward_step");
  py_->log_reward = method("log_reward");
  py_->is_mode = optional("is_mode");
  py_->mode_hits = optional("mode_hits");
  // Enumerable when the class defines all_states (looked up on the class: a property is not
  // evaluated until exact validation needs it), unless torchgfn's is_enumerable says no.
  const py::object is_enumerable = optional("is_enumerable");
  enumerable_ =
      py::hasattr(cls, "all_states") &&
      (is_enumerable.is_none() || as<bool>("is_enumerable", value_of(is_enumerable), "a bool"));
  if (enumerable_) {
    py_->states_indices = method("get_states_indices");
    py_->terminating_states_indices = optional("get_terminating_states_indices");
    if (py_->terminating_states_indices.is_none() && !every_state_terminates_) {
      fail("get_terminating_states_indices",
           "is missing: an enumerable environment whose states do not all terminate needs it");
    }
  }
  record_options(options.options);
}

void PythonEnvironment::read_description() {
  n_actions_ = as<std::int64_t>("n_actions", value_of(py_->object.attr("n_actions")), "an int");
  if (n_actions_ < 2)
    fail("n_actions", fmt::format("must be >= 2 (exit included), got {}", n_actions_));
  const py::object shape = py_->object.attr("state_shape");
  if (py::isinstance<py::int_>(shape)) {
    dim_ = as<std::int64_t>("state_shape", shape, "an int");
  } else {
    const auto sizes = as<std::vector<std::int64_t>>("state_shape", shape, "(state_dim,)");
    if (sizes.size() != 1)
      fail("state_shape", fmt::format("must be (state_dim,), got {}", dims(sizes)));
    dim_ = sizes[0];
  }
  if (dim_ < 1) fail("state_shape", fmt::format("must be (state_dim,) with state_dim >= 1"));
  s0_ = result("s0", value_of(py_->object.attr("s0")), at::kLong, {dim_}).clone();
  const py::object terminates = optional("every_state_terminates");
  every_state_terminates_ =
      !terminates.is_none() && as<bool>("every_state_terminates", value_of(terminates), "a bool");
  const py::object height = optional("khot_height");
  if (!height.is_none()) khot_height_ = as<std::int64_t>("khot_height", height, "an int");
  const py::object min_value = optional("khot_min_value");
  if (!min_value.is_none()) {
    khot_min_value_ = as<std::int64_t>("khot_min_value", min_value, "an int");
  }
  const py::object modes = optional("n_modes");
  if (!modes.is_none()) n_modes_ = as<std::int64_t>("n_modes", value_of(modes), "an int");
  const py::object probability = optional("mode_probability");
  if (!probability.is_none()) {
    const py::object p = value_of(probability);
    if (!p.is_none()) mode_probability_ = as<double>("mode_probability", p, "a float or None");
  }
}

void PythonEnvironment::build_enumeration() const {
  Enumeration e;
  e.all = result("all_states", value_of(py_->object.attr("all_states")), at::kLong, {-1, dim_});
  const py::object terminating = optional("terminating_states");
  e.terminating = terminating.is_none()
                      ? e.all.index({forward_masks(e.all).select(1, n_actions_ - 1)})
                      : result("terminating_states", value_of(terminating), at::kLong, {-1, dim_});
  const std::int64_t n_term = e.terminating.size(0);
  const py::object true_dist = optional("true_dist");
  const py::object log_z = optional("log_partition");
  if (true_dist.is_none() || log_z.is_none()) {
    // From log R over the terminating states: R / Z and log Z in float64.
    const at::Tensor log_r = log_reward(e.terminating).to(at::kDouble);
    e.log_z = log_r.logsumexp(0).item<double>();
    e.true_dist = (log_r - e.log_z).exp();
  }
  if (!true_dist.is_none()) {
    e.true_dist = floating("true_dist", value_of(true_dist), n_term).to(at::kDouble);
  }
  if (!log_z.is_none()) e.log_z = as<double>("log_partition", value_of(log_z), "a float");
  if (!std::isfinite(e.log_z))
    fail("log_partition", fmt::format("must be finite, got {}", e.log_z));
  enumeration_ = std::move(e);
}

}  // namespace

void install() {
  core::PythonSupport support;
  support.make = &make_python_environment;
  support.with_reward = &with_python_reward;
  core::set_python_support(support);
}

void resolve_python_path(core::EnvOptions& env, const std::string& config_file) {
  if (env.python.empty() && env.reward_python.empty()) return;
  std::error_code ec;
  if (env.python_path.empty()) {
    const auto dir = config_file.empty() ? std::filesystem::current_path(ec)
                                         : std::filesystem::absolute(config_file, ec).parent_path();
    env.python_path = dir.lexically_normal().string();
    return;
  }
  std::stringstream in(env.python_path);
  std::string out;
  for (std::string dir; std::getline(in, dir, ':');) {
    if (dir.empty()) continue;
    const auto absolute = std::filesystem::absolute(dir, ec).lexically_normal();
    out += (out.empty() ? "" : ":") + (ec ? dir : absolute.string());
  }
  env.python_path = out;
}

std::unique_ptr<core::Environment> make_python_environment(const core::EnvOptions& options) {
  start(options.python_path);
  return std::make_unique<PythonEnvironment>(options);
}

std::unique_ptr<core::Environment> with_python_reward(std::unique_ptr<core::Environment> inner,
                                                      const core::EnvOptions& options) {
  start(options.python_path);
  const std::string& spec = options.reward_python;
  const std::string label = fmt::format("env.reward_python '{}'", spec);
  std::shared_ptr<py::object> fn;
  std::string fn_name = spec;
  {
    const Gil gil;
    fn = std::shared_ptr<py::object>(new py::object(load(spec, "env.reward_python")),
                                     [](py::object* o) {
                                       if (!Py_IsInitialized()) return;  // gone: leaked
                                       const Gil gil;
                                       delete o;
                                     });
    if (py::hasattr(*fn, "__name__")) fn_name = py::str(fn->attr("__name__"));
  }
  core::LogRewardFunction log_reward = [fn, label, fn_name](const at::Tensor& states) {
    const Gil gil;
    py::object out;
    try {
      out = (*fn)(to_python(states));
    } catch (py::error_already_set& e) {
      throw std::runtime_error(
          fmt::format("{}: {} raised:\n{}", label, fn_name, traceback_text(e)));
    }
    const auto t = to_tensor(out);
    if (!t) {
      throw std::runtime_error(fmt::format("{}: {} must return a torch.Tensor, got a {}", label,
                                           fn_name, type_name(out)));
    }
    return *t;
  };
  return core::with_log_reward(std::move(inner), std::move(log_reward), label);
}

}  // namespace gfn::python
