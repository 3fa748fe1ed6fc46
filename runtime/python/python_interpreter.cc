#include "runtime/python/python_interpreter.h"

#include <fmt/format.h>
#include <pybind11/embed.h>
#include <torch/csrc/autograd/python_variable.h>

#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

#include "runtime/config/schema.h"

namespace gfn::python {
namespace {

void start_interpreter() {
  if (Py_IsInitialized()) return;  // a host that runs Python already (its GIL is its own)
  // The interpreter found at build time names the prefix (its standard library and
  // dist-packages, where python3-torch is), whatever python3 comes first on PATH at run time.
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.isolated = 0;
  config.use_environment = 1;          // PYTHONPATH etc. work as for python3
  config.install_signal_handlers = 0;  // gfn-train has its own (SIGINT, SIGTERM, SIGUSR1)
  PyConfig_SetBytesString(&config, &config.program_name, GFN_PYTHON_EXECUTABLE);
  py::initialize_interpreter(&config, 0, nullptr, /*add_program_dir_to_path=*/false);
  std::string failure;
  try {
    py::module_::import("torch");
  } catch (py::error_already_set& e) {
    failure = traceback_text(e);
  }
  // The GIL is released for good: every call takes it (Gil), on whatever thread.
  PyEval_SaveThread();
  if (!failure.empty()) {
    throw config::ConfigError(
        "the embedded Python cannot import torch (Debian's python3-torch, the same LibTorch as "
        "this program):\n" +
        failure);
  }
}

}  // namespace

void start(const std::string& python_path) {
  static std::once_flag once;
  std::call_once(once, start_interpreter);
  if (python_path.empty()) return;
  std::vector<std::string> dirs;
  std::stringstream in(python_path);
  for (std::string dir; std::getline(in, dir, ':');) {
    if (dir.empty()) continue;
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(dir, ec).lexically_normal();
    dirs.push_back(ec ? dir : absolute.string());
  }
  const Gil gil;
  py::list path = py::module_::import("sys").attr("path");
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    if (!path.contains(*it)) path.insert(0, *it);
  }
}

py::object load(const std::string& spec, const std::string& key) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) {
    throw config::ConfigError(fmt::format(
        "{} = '{}' is invalid: write \"module:name\" (e.g. \"hypergrid:HyperGrid\")", key, spec));
  }
  const std::string module_name = spec.substr(0, colon), attribute = spec.substr(colon + 1);
  py::module_ module;
  try {
    module = py::module_::import(module_name.c_str());
  } catch (py::error_already_set& e) {
    const std::string path = py::str(py::module_::import("sys").attr("path"));
    throw config::ConfigError(
        fmt::format("{} '{}': cannot import module '{}' (sys.path, env.python_path first: {}):\n{}",
                    key, spec, module_name, path, traceback_text(e)));
  }
  if (!py::hasattr(module, attribute.c_str())) {
    throw config::ConfigError(
        fmt::format("{} '{}': module '{}' ({}) has no attribute '{}'", key, spec, module_name,
                    py::str(module.attr("__file__")).cast<std::string>(), attribute));
  }
  return module.attr(attribute.c_str());
}

std::string traceback_text(py::error_already_set& e) {
  std::string text;
  try {
    const py::list lines =
        py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    for (const auto& line : lines) text += line.cast<std::string>();
  } catch (const std::exception&) {
    text = e.what();
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

py::object to_python(const at::Tensor& t) {
  PyObject* object = THPVariable_Wrap(t);
  if (object == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(object);
}

std::optional<at::Tensor> to_tensor(py::handle object) {
  if (!THPVariable_Check(object.ptr())) return std::nullopt;
  return THPVariable_Unpack(object.ptr());
}

std::string type_name(py::handle object) {
  return py::str(py::type::handle_of(object).attr("__name__"));
}

}  // namespace gfn::python
