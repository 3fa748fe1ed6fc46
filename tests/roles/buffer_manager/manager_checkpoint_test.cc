// CHECKPOINT / CHECKPOINT_DONE (roles/buffer_manager/manager_checkpoint.cc, the submitter's
// side in roles/trainer/submitter_state.cc): the manager writes its rank file only once every
// running trainer has asked, with counts matching what arrived, answers each with the file's
// size and CRC-32, and that file restores a fresh manager to the same state; refusals name
// what differs; submitters drain their baseline feed to the manager's count and restore
// their counters, so TRAINER_EXIT after a resume matches. One process, loopback transport
// (tests/support/loopback_transport.h), no mpirun.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "roles/trainer/submitter.h"
#include "runtime/checkpoint/atomic_file.h"
#include "runtime/checkpoint/checksum.h"
#include "runtime/checkpoint/store.h"
#include "tests/roles/buffer_manager/manager_unit_env.h"

namespace gfn::roles::testing {
namespace {

namespace fs = std::filesystem;
using protocol::MessageType;
namespace tags = protocol::tags;

class ManagerCheckpointTest : public ManagerUnitTest {
 protected:
  ManagerCheckpointTest() {
    dir_ = fs::temp_directory_path() /
           ("gfn_manager_ckpt_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    options_.checkpoint_root = (dir_ / "checkpoints").string();
  }
  ~ManagerCheckpointTest() override { fs::remove_all(dir_); }

  std::string rank_file(std::int64_t iteration) const {
    return options_.checkpoint_root + "/" + checkpoint::checkpoint_dir_name(iteration) + "/" +
           checkpoint::rank_file_name(kManager);
  }
  void serve(int n) {
    for (int i = 0; i < n; ++i) manager().serve_one();
  }

  fs::path dir_;
};

TEST_F(ManagerCheckpointTest, WrittenOnceEveryRunningTrainerAskedAndAnsweredToEach) {
  send_to_manager(kTrainer, MessageType::kData, submission(4, 3));
  send_to_manager(kTrainer2, MessageType::kData, submission(4, 2));
  serve(2);
  (void)reply<protocol::Score>(kTrainer, tags::kData, MessageType::kScore);
  (void)reply<protocol::Score>(kTrainer2, tags::kData, MessageType::kScore);

  send_to_manager(kTrainer, MessageType::kCheckpoint, protocol::CheckpointRequest{4, 1, 3});
  serve(1);
  EXPECT_EQ(waiting(kTrainer, tags::kCheckpoint), 0u) << "answered before every trainer asked";
  EXPECT_FALSE(fs::exists(rank_file(4)));

  send_to_manager(kTrainer2, MessageType::kCheckpoint, protocol::CheckpointRequest{4, 1, 2});
  serve(1);
  ASSERT_TRUE(fs::exists(rank_file(4)));
  const std::string bytes = checkpoint::read_whole_file(rank_file(4));
  for (int trainer : {kTrainer, kTrainer2}) {
    const auto done =
        reply<protocol::CheckpointDone>(trainer, tags::kCheckpoint, MessageType::kCheckpointDone);
    EXPECT_EQ(done.iteration, 4);
    EXPECT_EQ(done.bytes, bytes.size());
    EXPECT_EQ(done.crc32, checkpoint::crc32_of(bytes));
    EXPECT_EQ(done.baseline_pushes, 0);
  }

  // The file restores a fresh manager to that state.
  BufferManager fresh(rank(kManager), {kTrainer, kTrainer2}, options_, toy_modes);
  fresh.restore_state(bytes);
  EXPECT_EQ(fresh.save_state().size(), bytes.size());  // all but the elapsed time
  EXPECT_EQ(fresh.result().submissions, 2);
  EXPECT_EQ(fresh.replay().size(), 5);

  // A trainer that has exited is not waited for at the next boundary.
  send_to_manager(kTrainer2, MessageType::kTrainerExit, protocol::TrainerExit{1, 2});
  send_to_manager(kTrainer, MessageType::kCheckpoint, protocol::CheckpointRequest{8, 1, 3});
  serve(2);
  EXPECT_EQ(
      reply<protocol::CheckpointDone>(kTrainer, tags::kCheckpoint, MessageType::kCheckpointDone)
          .iteration,
      8);
  EXPECT_TRUE(fs::exists(rank_file(8)));
}

TEST_F(ManagerCheckpointTest, RefusedNamingTheCountsOrTheIterationsThatDiffer) {
  send_to_manager(kTrainer, MessageType::kCheckpoint, protocol::CheckpointRequest{3, 5, 10});
  serve(1);
  auto err = error_reply(kTrainer, tags::kCheckpoint);
  EXPECT_EQ(err.refused_type, static_cast<std::uint16_t>(MessageType::kCheckpoint));
  EXPECT_NE(err.what.find("CHECKPOINT after iteration 3: trainer rank 0 says it sent 5 "
                          "submissions (10 items), 0 (0 items) arrived"),
            std::string::npos)
      << err.what;

  send_to_manager(kTrainer, MessageType::kCheckpoint, protocol::CheckpointRequest{3, 0, 0});
  send_to_manager(kTrainer2, MessageType::kCheckpoint, protocol::CheckpointRequest{6, 0, 0});
  serve(2);
  err = error_reply(kTrainer2, tags::kCheckpoint);
  EXPECT_NE(err.what.find("CHECKPOINT after iteration 6 from trainer rank 1, while trainer rank "
                          "0 asked for one after iteration 3"),
            std::string::npos)
      << err.what;
  EXPECT_FALSE(fs::exists(rank_file(3)));
  EXPECT_FALSE(fs::exists(rank_file(6)));
  EXPECT_EQ(manager().result().errors_sent, 2);
}

TEST_F(ManagerUnitTest, CheckpointWithoutACheckpointDirectoryIsRefused) {
  send_to_manager(kTrainer, MessageType::kCheckpoint, protocol::CheckpointRequest{2, 0, 0});
  manager().serve_one();
  const auto err = error_reply(kTrainer, tags::kCheckpoint);
  EXPECT_NE(err.what.find("buffer manager rank 3 has no checkpoint directory"), std::string::npos)
      << err.what;
}

// Fire-and-forget trainers with a baseline feed: Submitter::checkpoint drains the feed up to
// the manager's count; a fresh submitter restored from save_state continues the counts, so
// the manager's exactly-once check at TRAINER_EXIT holds.
TEST_F(ManagerCheckpointTest, SubmittersDrainTheirFeedAndRestoredCountsMatchAtExit) {
  SubmitterOptions so;
  so.mode = SubmitterOptions::Mode::kFireAndForget;
  so.baseline_filter = true;
  so.timeout_s = 5;
  std::vector<std::string> failures(2);
  std::vector<protocol::CheckpointDone> done(2);
  std::vector<std::int64_t> updates(2), restored_submissions(2);
  const auto trainer = [&](int r) {
    try {
      std::string state;
      {
        Submitter submitter(rank(r), kManager, so);
        for (int it = 1; it <= 3; ++it) submitter.submit(submission(it, 4 + it));
        done[r] = submitter.checkpoint(3, 5.0);
        updates[r] = submitter.baseline_updates();
        state = submitter.save_state();
      }
      Submitter resumed(rank(r), kManager, so);
      resumed.restore_state(state);
      restored_submissions[r] = resumed.submissions();
      EXPECT_EQ(resumed.save_state(), state);
      resumed.exit(5.0);  // TRAINER_EXIT with the restored counts, feed drained to its end
    } catch (const std::exception& e) {
      failures[r] = e.what();
    }
  };
  std::thread t0(trainer, kTrainer), t1(trainer, kTrainer2);
  manager();  // built before the trainers send
  while (manager().serving()) manager().serve_one();
  t0.join();
  t1.join();
  for (int r : {kTrainer, kTrainer2}) {
    EXPECT_EQ(failures[r], "") << "trainer " << r;
    EXPECT_EQ(done[r].iteration, 3);
    EXPECT_GE(done[r].baseline_pushes, 1);
    EXPECT_EQ(updates[r], done[r].baseline_pushes) << "feed drained to the manager's count";
    EXPECT_EQ(restored_submissions[r], manager().result().per_sender.at(r).submissions);
  }
  EXPECT_EQ(manager().result().exit_mismatches, 0);
  EXPECT_GE(manager().result().submissions, 2);
  EXPECT_TRUE(fs::exists(rank_file(3)));
}

}  // namespace
}  // namespace gfn::roles::testing
