#include "runtime/launch/launch_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <vector>

namespace gfn::launch {
namespace {

// A variable that was found: its name and value.
struct Found {
  std::string name;
  std::string value;
};

std::optional<Found> first_found(const std::vector<const char*>& names, const EnvLookup& getenv) {
  for (const char* name : names) {
    if (auto value = getenv(name); value && !value->empty()) return Found{name, *value};
  }
  return std::nullopt;
}

int to_int(const Found& f, const char* launcher) {
  int out = 0;
  const char* end = f.value.data() + f.value.size();
  auto [ptr, ec] = std::from_chars(f.value.data(), end, out);
  if (ec != std::errc() || ptr != end) {
    throw LaunchError(
        fmt::format("{} launch environment: {}='{}' is not an integer", launcher, f.name, f.value));
  }
  return out;
}

// One launcher's variables, each a list of alternatives (first set wins).
struct Source {
  const char* launcher;
  std::vector<const char*> rank, size, local_rank, local_size;
};

const std::vector<Source>& sources() {
  static const std::vector<Source> kSources = {
      {"torchrun", {"RANK"}, {"WORLD_SIZE"}, {"LOCAL_RANK"}, {"LOCAL_WORLD_SIZE"}},
      {"openmpi",
       {"OMPI_COMM_WORLD_RANK"},
       {"OMPI_COMM_WORLD_SIZE"},
       {"OMPI_COMM_WORLD_LOCAL_RANK"},
       {"OMPI_COMM_WORLD_LOCAL_SIZE"}},
      {"pmi",
       {"PMI_RANK"},
       {"PMI_SIZE"},
       {"MPI_LOCALRANKID", "PMI_LOCAL_RANK"},
       {"MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"}},
      {"mvapich",
       {"MV2_COMM_WORLD_RANK"},
       {"MV2_COMM_WORLD_SIZE"},
       {"MV2_COMM_WORLD_LOCAL_RANK"},
       {"MV2_COMM_WORLD_LOCAL_SIZE"}},
      {"slurm",
       {"SLURM_PROCID"},
       {"SLURM_NTASKS", "SLURM_NPROCS"},
       {"SLURM_LOCALID"},
       {"SLURM_NTASKS_PER_NODE"}},
  };
  return kSources;
}

// Tasks on node `node_id` from Slurm's compressed SLURM_TASKS_PER_NODE ("4(x2),3").
std::optional<int> slurm_tasks_on_node(const std::string& spec, int node_id) {
  int node = 0;
  std::size_t pos = 0;
  while (pos < spec.size()) {
    std::size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    const std::string item = spec.substr(pos, comma - pos);
    int tasks = 0, repeat = 1;
    const std::size_t paren = item.find("(x");
    auto parse = [](const std::string& s, int& out) {
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      return ec == std::errc() && ptr == s.data() + s.size() && out > 0;
    };
    if (!parse(item.substr(0, paren), tasks)) return std::nullopt;
    if (paren != std::string::npos) {
      if (item.back() != ')' || !parse(item.substr(paren + 2, item.size() - paren - 3), repeat)) {
        return std::nullopt;
      }
    }
    if (node_id < node + repeat) return tasks;
    node += repeat;
    pos = comma + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> real_getenv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

bool torchrun_environment(const EnvLookup& getenv) {
  static const char* const kVars[] = {"RANK",
                                      "LOCAL_RANK",
                                      "WORLD_SIZE",
                                      "LOCAL_WORLD_SIZE",
                                      "GROUP_RANK",
                                      "ROLE_RANK",
                                      "ROLE_WORLD_SIZE",
                                      "MASTER_ADDR",
                                      "MASTER_PORT",
                                      "TORCHELASTIC_RESTART_COUNT",
                                      "TORCHELASTIC_MAX_RESTARTS",
                                      "TORCHELASTIC_RUN_ID"};
  for (const char* v : kVars) {
    if (!getenv(v)) return false;
  }
  return true;
}

std::optional<std::string> first_env(std::initializer_list<const char*> names,
                                     const EnvLookup& getenv) {
  auto found = first_found(std::vector<const char*>(names), getenv);
  if (!found) return std::nullopt;
  return found->value;
}

namespace {

// Where each value of a LaunchEnv came from, for error messages ("RANK=3",
// "launch.rank=3", "(local rank = rank)").
struct Origins {
  std::string rank = "(no launcher)", size = "(no launcher)";
  std::string local_rank = "(local rank = rank)";
  std::string local_size = "(local world size = world size)";
};

// Refuses explicit values that are wrong on their own or as the rank / world-size pair.
void check_explicit(const ExplicitLaunch& x) {
  if (x.rank.has_value() != x.world_size.has_value()) {
    throw LaunchError(x.rank ? fmt::format("launch.rank={} is set but launch.world_size is not; "
                                           "both rank and world size are needed",
                                           *x.rank)
                             : fmt::format("launch.world_size={} is set but launch.rank is not; "
                                           "both rank and world size are needed",
                                           *x.world_size));
  }
  if (x.world_size && *x.world_size < 1) {
    throw LaunchError(fmt::format("launch.world_size={} must be >= 1", *x.world_size));
  }
  if (x.rank && (*x.rank < 0 || *x.rank >= *x.world_size)) {
    throw LaunchError(fmt::format("launch.rank={} is not a valid rank for launch.world_size={}",
                                  *x.rank, *x.world_size));
  }
  if (x.local_rank && *x.local_rank < 0) {
    throw LaunchError(fmt::format("launch.local_rank={} must be >= 0", *x.local_rank));
  }
  if (x.local_world_size && *x.local_world_size < 1) {
    throw LaunchError(fmt::format("launch.local_world_size={} must be >= 1", *x.local_world_size));
  }
  if (x.master_addr && x.master_addr->empty()) {
    throw LaunchError("launch.master_addr is empty (leave it unset to use MASTER_ADDR)");
  }
  if (x.master_port && (*x.master_port < 1 || *x.master_port > 65535)) {
    throw LaunchError(
        fmt::format("launch.master_port={} is not a TCP port (1..65535)", *x.master_port));
  }
  if (x.restart_count && *x.restart_count < 0) {
    throw LaunchError(fmt::format("launch.restart_count={} must be >= 0", *x.restart_count));
  }
}

// The restart values (docs/checkpoints.md "Automatic restart"): explicit first, then
// torchrun's TORCHELASTIC_RESTART_COUNT (gfn-launch sets it too), then Slurm's
// SLURM_RESTART_COUNT (set on a requeued job); the reason from GFN_RESTART_REASON.
void restart_values(const ExplicitLaunch& x, const EnvLookup& getenv, LaunchEnv& env) {
  if (x.restart_count) {
    env.restart_count = *x.restart_count;
    env.restart_count_origin = "launch.restart_count";
  } else if (auto count =
                 first_found({"TORCHELASTIC_RESTART_COUNT", "SLURM_RESTART_COUNT"}, getenv)) {
    env.restart_count = to_int(*count, "restart");
    if (env.restart_count < 0) {
      throw LaunchError(fmt::format("{}={} must be >= 0", count->name, count->value));
    }
    env.restart_count_origin = count->name;
  }
  if (x.restart_reason) {
    env.restart_reason = *x.restart_reason;
  } else if (auto reason = first_found({"GFN_RESTART_REASON"}, getenv)) {
    env.restart_reason = reason->value;
  }
  if (x.job_token) {
    env.job_token = *x.job_token;
  } else if (auto token = first_found({"GFN_JOB_TOKEN"}, getenv)) {
    env.job_token = token->value;
  }
}

// Rank, world size and local values from the first launcher whose variables are set
// (see detect_launch_env); local values given explicitly are not read.
void from_environment(const ExplicitLaunch& x, const EnvLookup& getenv, LaunchEnv& env,
                      Origins& origins) {
  for (const Source& src : sources()) {
    auto rank = first_found(src.rank, getenv);
    auto size = first_found(src.size, getenv);
    if (src.launcher == std::string("pmi") && !rank && size) {
      rank = first_found({"PMIX_RANK"}, getenv);
    }
    if (!rank && !size) continue;
    if (!rank || !size) {
      const Found& given = rank ? *rank : *size;
      throw LaunchError(fmt::format(
          "{} launch environment: {}={} is set but {} is not; both rank and world size are needed",
          src.launcher, given.name, given.value, rank ? src.size.front() : src.rank.front()));
    }
    env.launcher = src.launcher;
    env.rank = to_int(*rank, src.launcher);
    env.world_size = to_int(*size, src.launcher);
    origins.rank = rank->name + "=" + rank->value;
    origins.size = size->name + "=" + size->value;
    if (env.world_size < 1 || env.rank < 0 || env.rank >= env.world_size) {
      throw LaunchError(fmt::format("{} launch environment: {} is not a valid rank for {}",
                                    src.launcher, origins.rank, origins.size));
    }
    env.local_rank = env.rank;
    env.local_world_size = env.world_size;
    if (!x.local_rank) {
      if (auto local_rank = first_found(src.local_rank, getenv)) {
        env.local_rank = to_int(*local_rank, src.launcher);
        origins.local_rank = local_rank->name;
      }
    }
    if (x.local_world_size) return;
    auto local_size = first_found(src.local_size, getenv);
    // Slurm's SLURM_NTASKS_PER_NODE may itself be compressed; fall through to
    // SLURM_TASKS_PER_NODE below when it is not a plain integer.
    if (local_size && env.launcher == "slurm" &&
        local_size->value.find_first_not_of("0123456789") != std::string::npos) {
      local_size.reset();
    }
    if (local_size) {
      env.local_world_size = to_int(*local_size, src.launcher);
      origins.local_size = local_size->name;
    } else if (env.launcher == "slurm") {
      auto spec = first_found({"SLURM_TASKS_PER_NODE"}, getenv);
      auto node_id = first_found({"SLURM_NODEID"}, getenv);
      if (spec && node_id) {
        const auto tasks = slurm_tasks_on_node(spec->value, to_int(*node_id, "slurm"));
        if (!tasks) {
          throw LaunchError(fmt::format(
              "slurm launch environment: cannot read the tasks of node {}={} from {}='{}'",
              node_id->name, node_id->value, spec->name, spec->value));
        }
        env.local_world_size = *tasks;
        origins.local_size = "SLURM_TASKS_PER_NODE";
      }
    }
    return;
  }
}

// XFFL_FEDERATED_LOCAL_WORLD_SIZE: comma-separated node counts, one per federation.
std::vector<int> federated_nodes(const EnvLookup& getenv) {
  const auto found = first_found({"XFFL_FEDERATED_LOCAL_WORLD_SIZE"}, getenv);
  if (!found) return {};
  std::vector<int> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = std::min(found->value.find(',', pos), found->value.size());
    const Found item{found->name, found->value.substr(pos, comma - pos)};
    try {
      out.push_back(to_int(item, "xffl"));
    } catch (const LaunchError&) {
      throw LaunchError(
          fmt::format("xffl launch environment: {}='{}' is not a comma-separated list of integers",
                      found->name, found->value));
    }
    if (comma == found->value.size()) return out;
    pos = comma + 1;
  }
}

}  // namespace

LaunchEnv detect_launch_env(const EnvLookup& getenv) {
  return detect_launch_env(ExplicitLaunch{}, getenv);
}

LaunchEnv detect_launch_env(const ExplicitLaunch& x, const EnvLookup& getenv) {
  check_explicit(x);
  LaunchEnv env;
  Origins origins;
  if (x.rank) {
    env.launcher = "explicit";
    env.rank = *x.rank;
    env.world_size = *x.world_size;
    env.local_rank = env.rank;
    env.local_world_size = env.world_size;
    origins.rank = fmt::format("launch.rank={}", env.rank);
    origins.size = fmt::format("launch.world_size={}", env.world_size);
  } else {
    from_environment(x, getenv, env, origins);
  }
  if (x.local_rank) {
    env.local_rank = *x.local_rank;
    origins.local_rank = "launch.local_rank";
  }
  if (x.local_world_size) {
    env.local_world_size = *x.local_world_size;
    origins.local_size = "launch.local_world_size";
  }
  const std::string who = env.launcher == "explicit" ? "explicit launch values"
                          : env.launcher == "none"   ? "launch values"
                                                     : env.launcher + " launch environment";
  if (env.local_world_size < 1 || env.local_world_size > env.world_size) {
    throw LaunchError(fmt::format("{}: local world size {} from {} is not in 1..{} ({})", who,
                                  env.local_world_size, origins.local_size, env.world_size,
                                  origins.size));
  }
  if (env.local_rank < 0 || env.local_rank >= env.local_world_size) {
    throw LaunchError(fmt::format(
        "{}: local rank {} from {} is not in 0..{} (local world size from {})", who, env.local_rank,
        origins.local_rank, env.local_world_size - 1, origins.local_size));
  }
  if (env.launcher != "none") {
    env.rank_origin = origins.rank;
    env.world_size_origin = origins.size;
  }
  if (x.master_addr) {
    env.master_addr = *x.master_addr;
    env.master_addr_origin = "launch.master_addr";
  } else if (auto addr = first_found({"MASTER_ADDR"}, getenv)) {
    env.master_addr = addr->value;
    env.master_addr_origin = "MASTER_ADDR";
  }
  if (x.master_port) {
    env.master_port = *x.master_port;
    env.master_port_origin = "launch.master_port";
  } else if (auto port = first_found({"MASTER_PORT"}, getenv)) {
    env.master_port = to_int(*port, env.launcher.c_str());
    if (env.master_port < 0 || env.master_port > 65535) {
      throw LaunchError(fmt::format("MASTER_PORT={} is not a TCP port (0..65535)", port->value));
    }
    if (env.master_port != 0) env.master_port_origin = "MASTER_PORT";
  }
  env.mpi_launcher =
      first_found({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"}, getenv)
          .has_value();
  if (auto node = first_found({"GROUP_RANK"}, getenv)) env.node_rank = to_int(*node, "torchrun");
  if (auto nodes = first_found({"GROUP_WORLD_SIZE"}, getenv)) {
    env.num_nodes = to_int(*nodes, "torchrun");
  }
  env.federated_nodes = federated_nodes(getenv);
  restart_values(x, getenv, env);
  return env;
}

}  // namespace gfn::launch
