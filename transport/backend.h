#pragma once
// The transport backends (YAML transport.backend) and their names, written once: the
// configuration (roles/context/transport_options.h), make_transport (factory.h),
// Transport::backend() and the seed-library entry points that take a backend by name
// (runtime/compat/process_group.h, roles/context/initialize.h) all use this table.
// Header-only, no allocation except parse_backend's error-free lookups; thread-safe.

#include <optional>
#include <string>

namespace gfn::transport {

enum class Backend {
  kMpi,    ///< Open MPI (transport/mpi)
  kTorch,  ///< LibTorch c10d ProcessGroupGloo (transport/gloo)
};

/// A backend and its name (the shape of runtime/config/enum_names.h EnumName, so the
/// configuration's enum_name / parse_enum / enum_choices read this table too).
struct BackendName {
  Backend value;
  const char* name;
};
inline constexpr BackendName kBackendNames[] = {{Backend::kMpi, "mpi"}, {Backend::kTorch, "torch"}};

/// The table of Backend (found by argument-dependent lookup).
inline constexpr const auto& enum_names(Backend) { return kBackendNames; }

/// "mpi" | "torch".
inline const char* backend_name(Backend backend) {
  for (const auto& entry : kBackendNames) {
    if (entry.value == backend) return entry.name;
  }
  return "?";
}

/// The backend of a name of the table, or nullopt.
inline std::optional<Backend> parse_backend(const std::string& name) {
  for (const auto& entry : kBackendNames) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

/// As parse_backend, also accepting "gloo" (c10d's name of the torch backend), as the
/// seed libraries' APIs do (xffl, initialize_distributed_compute).
inline std::optional<Backend> parse_backend_or_gloo(const std::string& name) {
  if (name == "gloo") return Backend::kTorch;
  return parse_backend(name);
}

/// "mpi, torch": the names of the table, for error messages.
inline std::string backend_choices() {
  std::string out;
  for (const auto& entry : kBackendNames) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

}  // namespace gfn::transport
