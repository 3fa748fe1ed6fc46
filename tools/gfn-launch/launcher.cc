#include "tools/gfn-launch/launcher.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gfn::launch_tool {

namespace bp = boost::process;
namespace asio = boost::asio;

std::string random_job_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(device()));
    token += buf;
  }
  return token;
}

std::vector<SimulatedHost> parse_hosts(const std::string& spec) {
  std::vector<SimulatedHost> hosts;
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto colon = item.find(':');
    SimulatedHost h;
    h.name = item.substr(0, colon);
    bool ok = colon != std::string::npos && !h.name.empty();
    if (ok) {
      const std::string count = item.substr(colon + 1);
      ok = !count.empty() && count.size() < 7 &&
           count.find_first_not_of("0123456789") == std::string::npos;
      if (ok) h.ranks = std::stoi(count);
    }
    if (!ok || h.ranks < 1) {
      throw std::invalid_argument("gfn-launch: --hosts item '" + item +
                                  "' is not NAME:RANKS with RANKS >= 1 (e.g. --hosts a:8,b:8)");
    }
    for (const auto& other : hosts) {
      if (other.name == h.name) {
        throw std::invalid_argument("gfn-launch: --hosts names host '" + h.name + "' twice");
      }
    }
    hosts.push_back(h);
  }
  if (hosts.empty()) throw std::invalid_argument("gfn-launch: --hosts is empty");
  return hosts;
}

int free_port() {
  asio::io_context ioc;
  asio::ip::tcp::acceptor acceptor(ioc);
  const asio::ip::tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  acceptor.open(ep.protocol());
  acceptor.bind(ep);
  return acceptor.local_endpoint().port();
}

namespace {

// The program to execute: `name` itself if it contains '/', else the first
// executable match on PATH (as execvp would). Empty if not found.
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// Puts the child in its own process group (in the child, before exec), so signals
// reach its whole process tree (kill(-pgid)) and a terminal's Ctrl-C reaches it once,
// through the launcher.
struct NewProcessGroup : bp::extend::handler {
  template <class Executor>
  void on_exec_setup(Executor&) const {
    ::setpgid(0, 0);
  }
};

// The child's environment: this process's, with `overrides` replacing or adding variables.
// Built here rather than with boost::this_process::environment()[key] = value: Boost.Process
// 1.74's lookup (basic_environment_impl::find) compares `key=` with every entry over the
// key's length and reads past the end of shorter entries (a heap-buffer-overflow reported by
// AddressSanitizer, tools/run_sanitizers.sh). Sets the executor's envp, as Boost's own env
// initializer does.
class ChildEnvironment : public bp::extend::handler {
 public:
  explicit ChildEnvironment(const std::vector<std::pair<std::string, std::string>>& overrides) {
    for (char** e = ::environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      const std::string key = entry.substr(0, entry.find('='));
      bool replaced = false;
      for (const auto& [k, v] : overrides) replaced = replaced || k == key;
      if (!replaced) entries_.push_back(entry);
    }
    for (const auto& [k, v] : overrides) entries_.push_back(k + "=" + v);
  }
  template <class Executor>
  void on_setup(Executor& exec) const {
    pointers_.clear();
    for (const auto& e : entries_) pointers_.push_back(const_cast<char*>(e.c_str()));
    pointers_.push_back(nullptr);
    exec.env = pointers_.data();
  }

 private:
  std::vector<std::string> entries_;
  mutable std::vector<char*> pointers_;  ///< into entries_, NULL-terminated (execve's envp)
};

// Exit code of a raw wait status: the exit status, or 128 + signal number.
int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// " (killed by signal 9: SIGKILL)" for a raw wait status of a child ended by a signal,
// else "".
std::string describe_signal(int status) {
  if (!WIFSIGNALED(status)) return {};
  const int sig = WTERMSIG(status);
  const char* name = sigabbrev_np(sig);  // glibc >= 2.32
  return " (killed by signal " + std::to_string(sig) + (name ? std::string(": SIG") + name : "") +
         ")";
}

// Forwards one pipe of one child line by line, prefixed with its rank.
class LineForwarder : public std::enable_shared_from_this<LineForwarder> {
 public:
  LineForwarder(asio::io_context& ioc, std::string prefix, std::ostream& out)
      : pipe_(ioc), prefix_(std::move(prefix)), out_(out) {}
  bp::async_pipe& pipe() { return pipe_; }

  void start() {
    auto self = shared_from_this();
    asio::async_read_until(
        pipe_, buffer_, '\n',
        [self](const boost::system::error_code& ec, std::size_t n) { self->on_read(ec, n); });
  }

 private:
  void on_read(const boost::system::error_code& ec, std::size_t n) {
    std::istream in(&buffer_);
    if (!ec) {
      std::string line;
      line.resize(n);
      in.read(&line[0], static_cast<std::streamsize>(n));
      out_ << prefix_ << line << std::flush;  // `line` ends with '\n'
      start();
      return;
    }
    // EOF (or a pipe error): flush what is left, then stop.
    if (buffer_.size() > 0) {
      std::string rest(asio::buffers_begin(buffer_.data()), asio::buffers_end(buffer_.data()));
      buffer_.consume(buffer_.size());
      out_ << prefix_ << rest << '\n' << std::flush;
    }
  }

  bp::async_pipe pipe_;
  asio::streambuf buffer_;
  std::string prefix_;
  std::ostream& out_;
};

class Launch {
 public:
  Launch(const LaunchOptions& o, int attempt, std::string reason)
      : opts_(o),
        attempt_(attempt),
        reason_(std::move(reason)),
        signals_(ioc_, SIGINT, SIGTERM),
        kill_timer_(ioc_) {}

  /// What ended this attempt (describe_failure), "" when nothing failed.
  const std::string& failure() const { return failure_; }
  /// True when the launcher received SIGINT / SIGTERM during this attempt.
  bool interrupted() const { return interrupted_; }

  int run() {
    const std::string program = resolve_program(opts_.command.at(0));
    if (program.empty()) {
      std::cerr << "gfn-launch: command not found: " << opts_.command[0] << '\n';
      return 127;
    }
    const int port = opts_.master_port > 0 ? opts_.master_port : free_port();
    std::cerr << "gfn-launch: " << opts_.nproc << " processes, MASTER_ADDR=" << opts_.master_addr
              << " MASTER_PORT=" << port;
    if (opts_.max_restarts > 0) {
      std::cerr << ", attempt " << attempt_ + 1 << " of " << opts_.max_restarts + 1;
    }
    std::cerr << '\n';
    signals_.async_wait(
        [this](const boost::system::error_code& ec, int sig) { on_signal(ec, sig); });
    children_.resize(static_cast<std::size_t>(opts_.nproc));
    running_ = 0;
    for (int i = 0; i < opts_.nproc; ++i) {
      if (!start_child(program, i, port)) break;
    }
    if (running_ == 0) {  // nothing started: no exit will cancel the waits
      signals_.cancel();
      kill_timer_.cancel();
    }
    ioc_.run();
    return first_failure_.value_or(0);
  }

 private:
  // The child's variables: torchrun's, and the restart values (launcher.h).
  std::vector<std::pair<std::string, std::string>> child_variables(int i, int port) const {
    int local_rank = i, local_size = opts_.nproc, host = 0;
    for (int first = 0; host < static_cast<int>(opts_.hosts.size()); ++host) {
      const int n = opts_.hosts[static_cast<std::size_t>(host)].ranks;
      if (i < first + n) {
        local_rank = i - first;
        local_size = n;
        break;
      }
      first += n;
    }
    std::vector<std::pair<std::string, std::string>> vars = {
        {"RANK", std::to_string(i)},
        {"LOCAL_RANK", std::to_string(local_rank)},
        {"WORLD_SIZE", std::to_string(opts_.nproc)},
        {"LOCAL_WORLD_SIZE", std::to_string(local_size)},
        {"MASTER_ADDR", opts_.master_addr},
        {"MASTER_PORT", std::to_string(port)},
        {"TORCHELASTIC_RESTART_COUNT", std::to_string(attempt_)},
        {"TORCHELASTIC_MAX_RESTARTS", std::to_string(opts_.max_restarts)},
        {"GFN_JOB_TOKEN", opts_.job_token}};
    if (attempt_ > 0) vars.emplace_back("GFN_RESTART_REASON", reason_);
    if (!opts_.hosts.empty()) {
      vars.emplace_back("GROUP_RANK", std::to_string(host));
      vars.emplace_back("GROUP_WORLD_SIZE", std::to_string(opts_.hosts.size()));
      vars.emplace_back("GFN_HOSTNAME", opts_.hosts[static_cast<std::size_t>(host)].name);
    }
    return vars;
  }

  // Starts rank i; false (and the others stopped) when it cannot be started.
  bool start_child(const std::string& program, int i, int port) {
    const std::vector<std::string> args(opts_.command.begin() + 1, opts_.command.end());
    const ChildEnvironment env(child_variables(i, port));
    const std::string prefix = "[rank " + std::to_string(i) + "] ";
    auto out = std::make_shared<LineForwarder>(ioc_, prefix, std::cout);
    auto err = std::make_shared<LineForwarder>(ioc_, prefix, std::cerr);
    try {
      children_[static_cast<std::size_t>(i)] = std::make_unique<bp::child>(
          program, bp::args(args), env, bp::std_out > out->pipe(), bp::std_err > err->pipe(),
          bp::std_in < bp::null, NewProcessGroup{}, ioc_,
          bp::on_exit([this, i](int, const std::error_code&) { on_exit(i); }));
    } catch (const std::exception& e) {
      std::cerr << "gfn-launch: cannot start rank " << i << " (" << program << "): " << e.what()
                << '\n';
      first_failure_ = 127;
      failure_ = "rank " + std::to_string(i) + " could not be started";
      stop_children(SIGTERM);
      return false;
    }
    ++running_;
    out->start();
    err->start();
    return true;
  }

  void on_exit(int i) {
    const auto& child = *children_[static_cast<std::size_t>(i)];
    const int status = child.native_exit_code();
    const int code = exit_code_of(status);
    exited_.push_back(i);
    --running_;
    if (code != 0 && !first_failure_) {
      first_failure_ = code;
      failure_ = describe_failure(i, child.id(), status);
      std::cerr << "gfn-launch: " << failure_ << "; stopping the other ranks\n";
      stop_children(SIGTERM);
      kill_timer_.expires_after(
          std::chrono::milliseconds(static_cast<long>(opts_.kill_grace_s * 1000)));
      kill_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) stop_children(SIGKILL);
      });
    }
    if (running_ == 0) {
      signals_.cancel();
      kill_timer_.cancel();
    }
  }

  void on_signal(const boost::system::error_code& ec, int sig) {
    if (ec) return;  // cancelled: all children are gone
    interrupted_ = true;
    std::cerr << "gfn-launch: forwarding signal " << sig << " to the children\n";
    stop_children(sig);
    signals_.async_wait([this](const boost::system::error_code& e, int s) { on_signal(e, s); });
  }

  // Sends `sig` to the process group of every child that has not exited yet. A stopped
  // (SIGSTOP) child is not continued: it ends at the SIGKILL after the grace period.
  void stop_children(int sig) {
    for (std::size_t i = 0; i < children_.size(); ++i) {
      auto& c = children_[i];
      if (!c) continue;
      bool gone = false;
      for (int e : exited_) gone = gone || static_cast<std::size_t>(e) == i;
      if (!gone) ::kill(-c->id(), sig);  // the child's process group
    }
  }

  const LaunchOptions& opts_;
  const int attempt_;
  const std::string reason_;
  asio::io_context ioc_;
  asio::signal_set signals_;
  asio::steady_timer kill_timer_;
  std::vector<std::unique_ptr<bp::child>> children_;
  std::vector<int> exited_;
  int running_ = 0;
  std::optional<int> first_failure_;
  std::string failure_;
  bool interrupted_ = false;
};

}  // namespace

std::string describe_failure(int rank, long pid, int wait_status) {
  return "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) +
         ") failed with exit code " + std::to_string(exit_code_of(wait_status)) +
         describe_signal(wait_status);
}

int run(const LaunchOptions& given) {
  LaunchOptions options = given;
  if (options.job_token.empty()) options.job_token = random_job_token();
  if (options.nproc < 1) throw std::invalid_argument("gfn-launch: -n must be >= 1");
  if (options.command.empty()) throw std::invalid_argument("gfn-launch: no command given");
  if (options.max_restarts < 0) throw std::invalid_argument("gfn-launch: --max-restarts < 0");
  std::string reason;
  int short_failures = 0;  // consecutive failed attempts shorter than restart_reset_s
  for (int attempt = 0;; ++attempt) {
    Launch launch(options, attempt, reason);
    const auto started = std::chrono::steady_clock::now();
    const int code = launch.run();
    if (code == 0 || code == 127 || launch.interrupted() || attempt >= options.max_restarts) {
      if (code != 0 && attempt > 0) {
        std::cerr << "gfn-launch: giving up after " << attempt << " restart(s)\n";
      }
      return code;
    }
    reason = launch.failure();
    const std::chrono::duration<double> ran = std::chrono::steady_clock::now() - started;
    if (ran.count() >= options.restart_reset_s) short_failures = 0;
    const double backoff =
        std::min(60.0, options.restart_backoff_s * std::ldexp(1.0, short_failures++));
    std::cerr << "gfn-launch: restart " << attempt + 1 << " of " << options.max_restarts << " in "
              << backoff << " s after: " << reason << '\n';
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
  }
}

}  // namespace gfn::launch_tool
