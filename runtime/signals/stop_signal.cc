#include "runtime/signals/stop_signal.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <stdexcept>

namespace gfn::signals {
namespace {
std::atomic<bool> g_installed{false};
}

struct StopSignal::Impl {
  boost::asio::io_context io;
  boost::asio::signal_set signals{io, SIGINT, SIGTERM, SIGUSR1};
  std::thread thread;
};

StopSignal::StopSignal() {
  if (g_installed.exchange(true)) throw std::logic_error("only one StopSignal may exist at a time");
  impl_ = std::make_unique<Impl>();
  impl_->signals.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;  // cancelled at destruction
    signal_number_.store(signo);
    stop_.store(true);
  });
  impl_->thread = std::thread([io = &impl_->io] { io->run(); });
}

StopSignal::~StopSignal() {
  boost::system::error_code ec;
  impl_->signals.cancel(ec);
  impl_->signals.clear(ec);
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  g_installed.store(false);
}

std::string StopSignal::signal_name() const {
  switch (signal_number_.load()) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case 0:
      return "";
    default:
      return "signal " + std::to_string(signal_number_.load());
  }
}

}  // namespace gfn::signals
