#pragma once
// Shared by the single-process unit tests of roles/buffer_manager/ (manager_test.cc,
// handlers_test.cc): a loopback world (tests/support/loopback_transport.h) of trainers,
// an unassigned rank, the manager and a coordinator, all driven from the test thread.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "roles/buffer_manager/manager.h"
#include "roles/protocol/codec.h"
#include "roles/protocol/messages.h"
#include "tests/roles/buffer_manager/protocol_test_env.h"
#include "tests/support/loopback_transport.h"
#include "transport/framing/message.h"

namespace gfn::roles::testing {

constexpr int kTrainer = 0;      ///< assigned trainer
constexpr int kTrainer2 = 1;     ///< assigned trainer
constexpr int kStranger = 2;     ///< a rank the manager does not serve
constexpr int kManager = 3;      ///< the manager under test
constexpr int kCoordinator = 4;  ///< used when options.coordinator_rank is set
constexpr double kWait = 2.0;    ///< seconds any expected reply may take (it is queued at once)

/// `n` items of ndim 2: states (i % 3, i), log rewards 0.5 * i; the first coordinate 1
/// marks a mode (toy_modes).
inline protocol::Submission submission(std::int64_t iteration, int n) {
  protocol::Submission s;
  s.iteration = iteration;
  s.ndim = 2;
  for (int i = 0; i < n; ++i) {
    s.states.push_back(i % 3);
    s.states.push_back(i);
    s.log_rewards.push_back(0.5f * static_cast<float>(i));
  }
  return s;
}

/// Adds trajectories for an environment of `n_actions` actions: item i takes
/// (i % 2) + 1 non-exit actions then the exit action n_actions - 1.
inline void add_trajectories(protocol::Submission& s, std::int64_t n_actions) {
  for (std::int64_t i = 0; i < s.size(); ++i) {
    const int steps = static_cast<int>(i % 2) + 1;
    for (int k = 0; k < steps; ++k) s.trajectories.actions.push_back((i + k) % (n_actions - 1));
    s.trajectories.actions.push_back(n_actions - 1);
    s.trajectories.lengths.push_back(steps + 1);
  }
}

class ManagerUnitTest : public ::testing::Test {
 protected:
  ManagerUnitTest() : world_(5) {
    options_.capacity = 16;
    options_.idle_timeout_s = 5;
  }

  /// The manager under test, serving kTrainer and kTrainer2 with options_.
  BufferManager& manager(timing::TimingTable* timing = nullptr) {
    if (!manager_) {
      manager_ = std::make_unique<BufferManager>(world_.rank(kManager),
                                                 std::vector<int>{kTrainer, kTrainer2}, options_,
                                                 toy_modes, timing);
    }
    return *manager_;
  }
  transport::Transport& rank(int r) { return world_.rank(r); }

  /// Sends `payload` as a message of `type` from `from` to the manager on kData.
  template <class T>
  void send_to_manager(int from, protocol::MessageType type, const T& payload) {
    rank(from).send(protocol::encode_as(type, payload), kManager, protocol::tags::kData);
  }

  /// Runs `handler` of the manager on a message of `type` carrying `payload`, as if it
  /// had arrived from `from` (the handler reads a view of the encoded bytes).
  template <class T, class Handler>
  void handle(Handler handler, int from, protocol::MessageType type, const T& payload) {
    const transport::Bytes wire = protocol::encode_as(type, payload);
    const auto view = protocol::decode_message_view(wire, 1 << 20);
    handler(manager(), from, view);
  }
  void data(int from, const protocol::Submission& s) {
    handle([](BufferManager& m, int src, const auto& v) { m.on_data(src, v, 0.0); }, from,
           protocol::MessageType::kData, s);
  }

  /// The next message from the manager to `to` on `tag`, which must be of `type`.
  template <class T>
  T reply(int to, int tag, protocol::MessageType type) {
    const auto got = rank(to).recv(kManager, tag, transport::Seconds(kWait));
    const auto m = protocol::decode_message(got.bytes, 1 << 20);
    EXPECT_EQ(m.type, type) << "got " << protocol::name(m.type) << ", expected "
                            << protocol::name(type);
    if (m.type != type) return T{};
    return protocol::decode<T>(m);
  }
  protocol::ErrorReply error_reply(int to, int tag) {
    return reply<protocol::ErrorReply>(to, tag, protocol::MessageType::kError);
  }
  /// Messages from the manager waiting at `to` on `tag`.
  std::size_t waiting(int to, int tag) const { return world_.queued(to, tag); }

  gfn::testing::LoopbackWorld world_;
  BufferManagerOptions options_;
  std::unique_ptr<BufferManager> manager_;
};

}  // namespace gfn::roles::testing
