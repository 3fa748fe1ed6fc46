#pragma once
// The embedded CPython of gfn-train (python_environment.h uses it): started once per process,
// with `import torch`, then released so that any thread may call into it under the GIL.
//
// Tensors cross without a copy, as the same at::TensorImpl: Debian's python3-torch and the
// LibTorch this program links (libtorch-dev) are one build (torch/lib/libtorch_cpu.so of the
// Python package is the system's libtorch_cpu.so.1.13), so to_python wraps an at::Tensor in a
// torch.Tensor with libtorch_python's THPVariable_Wrap and to_tensor unwraps one with
// THPVariable_Unpack. Why not DLPack: LibTorch 1.13 refuses bool tensors there ("Bool type is
// not supported by dlpack", and the masks are bool), and each conversion is a Python call
// (torch.utils.dlpack.from_dlpack) on top of the capsule; THPVariable_Wrap allocates one Python
// object and shares everything else (dtype, strides, storage, autograd state).
//
// Thread-safety: start() is serialised (std::call_once); every other function needs the GIL
// (hold a Gil). Errors: config::ConfigError for what a configuration names wrongly, and
// python_failure() formats a Python exception with its traceback.

#include <pybind11/pybind11.h>

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>

namespace gfn::python {

namespace py = pybind11;

/// Holds the GIL for its scope (any thread).
using Gil = py::gil_scoped_acquire;

/// Starts the interpreter if this process has none yet (without Python's signal handlers:
/// gfn-train has its own), imports torch, and puts the directories of `python_path` (':'
/// separated, relative ones from the working directory) at the front of sys.path, once each.
/// Call without holding the GIL. Throws config::ConfigError (with the traceback) when torch
/// does not import. Cost: ~1 s the first time (import torch), then O(directories).
void start(const std::string& python_path);

/// The object `spec` ("module:attribute") names, imported. `key` names the configuration key
/// in messages (env.python, env.reward_python). Needs the GIL. Throws config::ConfigError for
/// a spec without ':', a module that does not import (its traceback) or a missing attribute.
py::object load(const std::string& spec, const std::string& key);

/// The text of the Python exception `e`: its traceback as Python prints it (traceback.
/// format_exception), without the trailing newline. Needs the GIL.
std::string traceback_text(py::error_already_set& e);

/// A torch.Tensor sharing `t`'s TensorImpl. Needs the GIL.
py::object to_python(const at::Tensor& t);

/// The at::Tensor of a torch.Tensor (the same TensorImpl), or nullopt for another object.
/// Needs the GIL.
std::optional<at::Tensor> to_tensor(py::handle object);

/// Python's name of an object's type ("list", "Tensor", "NoneType"). Needs the GIL.
std::string type_name(py::handle object);

}  // namespace gfn::python
