// transport/send_handle.h semantics with a fake PendingSend that can fail on demand
// (c10d's FakeProcessGroup error_on_collective, Reverb's FakeInsertStream).

#include "transport/send_handle.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

#include "transport/errors.h"

namespace gfn::transport {
namespace {

using Sec = std::chrono::duration<double>;

/// Observable state of a FakePendingSend (outlives it).
struct FakeState {
  bool complete = false;          ///< the send has completed
  int fail_calls = 0;             ///< the next `fail_calls` test()/wait() throw TransportError
  bool complete_on_wait = false;  ///< a wait completes the send
  int tests = 0;
  std::vector<double> waits;  ///< timeouts passed to wait()
  bool destroyed = false;
  bool complete_when_destroyed = false;
};

class FakePendingSend : public PendingSend {
 public:
  explicit FakePendingSend(std::shared_ptr<FakeState> s) : s_(std::move(s)) {}
  ~FakePendingSend() override {
    s_->destroyed = true;
    s_->complete_when_destroyed = s_->complete;
  }
  bool test() override {
    ++s_->tests;
    fail_if_asked();
    return s_->complete;
  }
  void wait(double timeout_s) override {
    s_->waits.push_back(timeout_s);
    fail_if_asked();
    if (s_->complete) return;
    if (s_->complete_on_wait) {
      s_->complete = true;
      return;
    }
    throw TimeoutError("fake send to rank 3 on tag 0 timed out");
  }
  int peer() const override { return 3; }
  int tag() const override { return 0; }

 private:
  void fail_if_asked() {
    if (s_->fail_calls > 0) {
      --s_->fail_calls;
      throw TransportError("fake send to rank 3 on tag 0 failed");
    }
  }
  std::shared_ptr<FakeState> s_;
};

SendHandle make(const std::shared_ptr<FakeState>& s, Sec timeout = Sec(5.0)) {
  return SendHandle(std::make_unique<FakePendingSend>(s), timeout);
}

/// Message of the TransportError `f` throws; fails the test if it throws none or a timeout.
template <class F>
std::string send_error_of(F&& f) {
  try {
    f();
  } catch (const TimeoutError& e) {
    ADD_FAILURE() << "a send error is not a timeout: " << e.what();
  } catch (const TransportError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a TransportError";
  return {};
}

TEST(SendHandle, EmptyHandleIsComplete) {
  SendHandle h;
  EXPECT_TRUE(h.is_complete());
  EXPECT_NO_THROW(h.wait(std::chrono::seconds(0)));
  EXPECT_NO_THROW(h.wait());
}

TEST(SendHandle, IsCompletePollsUntilDoneThenCaches) {
  auto s = std::make_shared<FakeState>();
  SendHandle h = make(s);
  EXPECT_FALSE(h.is_complete());
  EXPECT_FALSE(h.is_complete());
  s->complete = true;
  EXPECT_TRUE(h.is_complete());
  const int tests = s->tests;
  EXPECT_TRUE(h.is_complete());
  EXPECT_EQ(s->tests, tests) << "a completed handle does not poll again";
}

// The backend reports the failure once (as MPI_Test does); the handle keeps reporting it.
TEST(SendHandle, AFailureSeenByIsCompleteIsReportedByEveryLaterCall) {
  auto s = std::make_shared<FakeState>();
  s->complete_on_wait = true;
  {
    SendHandle h = make(s);
    s->fail_calls = 1;
    EXPECT_NE(send_error_of([&] { h.is_complete(); }).find("rank 3"), std::string::npos);
    s->complete = true;  // the backend would now say "complete"
    for (int i = 0; i < 3; ++i) {
      EXPECT_NE(send_error_of([&] { h.is_complete(); }).find("failed"), std::string::npos);
      EXPECT_NE(send_error_of([&] { h.wait(); }).find("failed"), std::string::npos);
      EXPECT_NE(send_error_of([&] { h.wait(Sec(0.0)); }).find("failed"), std::string::npos);
    }
    EXPECT_EQ(s->tests, 1) << "the stored error is rethrown without asking the backend";
    EXPECT_TRUE(s->waits.empty());
  }
  EXPECT_TRUE(s->waits.empty()) << "a failed send is not waited for again on destruction";
  EXPECT_TRUE(s->destroyed);
}

TEST(SendHandle, AFailureSeenByWaitIsReportedByEveryLaterCall) {
  auto s = std::make_shared<FakeState>();
  s->fail_calls = 1;
  {
    SendHandle h = make(s);
    EXPECT_NE(send_error_of([&] { h.wait(Sec(1.0)); }).find("rank 3"), std::string::npos);
    s->complete = true;
    EXPECT_NE(send_error_of([&] { h.wait(); }).find("failed"), std::string::npos);
    EXPECT_NE(send_error_of([&] { h.is_complete(); }).find("failed"), std::string::npos);
    EXPECT_EQ(s->waits.size(), 1u);
    EXPECT_EQ(s->tests, 0);
  }  // the destructor neither throws nor waits again
  EXPECT_EQ(s->waits.size(), 1u);
  EXPECT_TRUE(s->destroyed);
}

TEST(SendHandle, MovingAFailedHandleKeepsItsError) {
  auto s = std::make_shared<FakeState>();
  s->fail_calls = 1;
  SendHandle a = make(s);
  EXPECT_THROW(a.is_complete(), TransportError);
  SendHandle b(std::move(a));
  EXPECT_THROW(b.is_complete(), TransportError);
  SendHandle c;
  c = std::move(b);
  EXPECT_THROW(c.wait(), TransportError);
}

TEST(SendHandle, DefaultWaitIsBoundedByTheHandleTimeout) {
  auto s = std::make_shared<FakeState>();
  SendHandle h = make(s, Sec(0.25));
  EXPECT_DOUBLE_EQ(h.timeout().count(), 0.25);
  EXPECT_THROW(h.wait(), TimeoutError);
  ASSERT_EQ(s->waits.size(), 1u);
  EXPECT_DOUBLE_EQ(s->waits[0], 0.25);
  s->complete = true;
  EXPECT_NO_THROW(h.wait());
}

TEST(SendHandle, AHandleWithoutTimeoutUsesTheDefaultTransportTimeout) {
  auto s = std::make_shared<FakeState>();
  SendHandle h(std::make_unique<FakePendingSend>(s));
  EXPECT_DOUBLE_EQ(h.timeout().count(), SendHandle::kDefaultTimeoutS);
  s->complete = true;
}

TEST(SendHandle, WaitTimesOutAndCanBeRetried) {
  auto s = std::make_shared<FakeState>();
  SendHandle h = make(s);
  EXPECT_THROW(h.wait(std::chrono::milliseconds(10)), TimeoutError);
  ASSERT_EQ(s->waits.size(), 1u);
  EXPECT_DOUBLE_EQ(s->waits[0], 0.01);
  EXPECT_FALSE(h.is_complete()) << "a timeout is not stored as the send's error";
  s->complete = true;
  EXPECT_NO_THROW(h.wait(std::chrono::milliseconds(10)));
  EXPECT_TRUE(h.is_complete());
}

TEST(SendHandle, DestroyingAnIncompleteHandleWaitsAtMostItsTimeout) {
  auto s = std::make_shared<FakeState>();
  s->complete_on_wait = true;
  { SendHandle h = make(s, Sec(2.5)); }
  ASSERT_EQ(s->waits.size(), 1u);
  EXPECT_DOUBLE_EQ(s->waits[0], 2.5) << "bounded by transport.timeout_s, never unbounded";
  EXPECT_TRUE(s->destroyed);
  EXPECT_TRUE(s->complete_when_destroyed) << "the pending send was destroyed before completing";
}

TEST(SendHandle, DestroyingAHandleWhoseSendFailsLogsAndDoesNotThrow) {
  auto s = std::make_shared<FakeState>();
  s->fail_calls = 1;
  EXPECT_NO_THROW({ SendHandle h = make(s); });
  EXPECT_EQ(s->waits.size(), 1u);
  EXPECT_TRUE(s->destroyed);
}

TEST(SendHandle, DestroyingACompleteHandleDoesNotWait) {
  auto s = std::make_shared<FakeState>();
  {
    SendHandle h = make(s);
    s->complete = true;
    EXPECT_TRUE(h.is_complete());
  }
  EXPECT_TRUE(s->waits.empty());
  EXPECT_TRUE(s->destroyed);
}

// A send still stuck after the timeout: the rank ends naming the peer and the tag, and
// the pending send (with its buffer) is never destroyed.
TEST(SendHandleDeathTest, DestroyingAStuckHandleEndsTheRankNamingPeerAndTag) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto s = std::make_shared<FakeState>();
  EXPECT_DEATH(
      {
        spdlog::set_default_logger(spdlog::stderr_color_mt("death"));
        SendHandle h = make(s, Sec(0.05));
      },
      "send to rank 3 on tag 0 did not complete within 0.05 s");
  // Same through move assignment over the stuck handle.
  EXPECT_DEATH(
      {
        spdlog::set_default_logger(spdlog::stderr_color_mt("death"));
        SendHandle h = make(s, Sec(0.05));
        h = SendHandle();
      },
      "rank 3 on tag 0");
}

TEST(SendHandle, MoveTransfersOwnershipAndAssignmentWaitsForTheOldSend) {
  auto a = std::make_shared<FakeState>();
  auto b = std::make_shared<FakeState>();
  a->complete_on_wait = true;
  b->complete_on_wait = true;
  SendHandle h1 = make(a, Sec(1.5));
  SendHandle h2(std::move(h1));
  EXPECT_TRUE(a->waits.empty());
  EXPECT_FALSE(a->destroyed);
  EXPECT_DOUBLE_EQ(h2.timeout().count(), 1.5);
  h2 = make(b);  // the old send (a) is waited for, then released
  EXPECT_TRUE(a->destroyed);
  EXPECT_TRUE(a->complete_when_destroyed);
  EXPECT_FALSE(b->destroyed);
}

}  // namespace
}  // namespace gfn::transport
