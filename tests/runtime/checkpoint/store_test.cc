// runtime/checkpoint/store.h: atomic checkpoints, rotation, verified reading.
#include "runtime/checkpoint/store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gfn::checkpoint {
namespace {
namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gfn_ckpt_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A complete two-rank checkpoint at `iteration` with content depending on it.
  std::string write(const CheckpointStore& store, std::int64_t iteration) {
    auto m = make_manifest(iteration, "seed: 1\n", 2, {"trainer", "trainer"});
    m.files.push_back(store.write_rank_file(iteration, 0, payload(iteration, 0)));
    m.files.push_back(store.write_rank_file(iteration, 1, payload(iteration, 1)));
    return store.commit(m);
  }
  static std::string payload(std::int64_t iteration, int rank) {
    return std::string(100 + rank, static_cast<char>('a' + iteration % 26)) + "end";
  }
  std::string root() const { return (dir_ / "checkpoints").string(); }
  fs::path dir_;
};

void expect_refusal(const std::string& path, const std::string& file, const std::string& why) {
  try {
    open_checkpoint(path);
    FAIL() << "accepted " << path;
  } catch (const CheckpointError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find(why), std::string::npos) << what;
  }
}

TEST(RunDirectoryTest, IsTheCheckpointsFoldersParentAbsolute) {
  const std::string cwd = fs::current_path().string();
  EXPECT_EQ(run_directory_of("/data/runs/a/checkpoints/iteration_00000010"), "/data/runs/a");
  EXPECT_EQ(run_directory_of("/data/runs/a/checkpoints/iteration_00000010/"), "/data/runs/a");
  EXPECT_EQ(run_directory_of("runs/./b/checkpoints/iteration_00000020"), cwd + "/runs/b");
  EXPECT_EQ(run_directory_of("/data/saved/iteration_00000010"), "");  // not under checkpoints/
  EXPECT_EQ(normal_directory("runs/a/"), cwd + "/runs/a");
  EXPECT_EQ(normal_directory("runs/a/../b"), cwd + "/runs/b");
  EXPECT_NE(normal_directory("runs/a"), normal_directory("runs/b"));
}

TEST_F(StoreTest, OpensTheNewestCompleteCheckpointFromTheRunDirectory) {
  CheckpointStore store(root(), 3);
  write(store, 10);
  write(store, 20);
  const auto c = open_checkpoint(dir_.string());  // the run directory
  EXPECT_EQ(c.manifest.iteration, 20);
  EXPECT_EQ(c.directory, root() + "/iteration_00000020");
  EXPECT_EQ(read_rank_file(c, 1), payload(20, 1));
  EXPECT_EQ(open_checkpoint(root()).manifest.iteration, 20);  // the checkpoints folder
  EXPECT_EQ(open_checkpoint(root() + "/iteration_00000010").manifest.iteration, 10);
}

TEST_F(StoreTest, KeepsTheLatestN) {
  CheckpointStore store(root(), 2);
  for (std::int64_t it : {5, 10, 15, 20}) write(store, it);
  EXPECT_EQ(store.complete_iterations(), (std::vector<std::int64_t>{15, 20}));
  EXPECT_FALSE(fs::exists(root() + "/iteration_00000005"));
}

TEST_F(StoreTest, AKillBetweenRankFilesAndManifestLeavesThePreviousCheckpointValid) {
  CheckpointStore store(root(), 2);
  write(store, 10);
  // The job dies after writing the rank files of iteration 20, before the manifest.
  store.write_rank_file(20, 0, payload(20, 0));
  store.write_rank_file(20, 1, payload(20, 1));
  // ... and a rank died mid-write of its file for iteration 30 (only the temporary exists).
  fs::create_directories(root() + "/iteration_00000030");
  std::ofstream(root() + "/iteration_00000030/rank_0.pt.tmp") << "partial";
  const auto c = open_checkpoint(dir_.string());
  EXPECT_EQ(c.manifest.iteration, 10);
  EXPECT_EQ(read_rank_file(c, 0), payload(10, 0));
  // The next complete checkpoint removes the incomplete ones older than itself.
  write(store, 40);
  EXPECT_FALSE(fs::exists(root() + "/iteration_00000020"));
  EXPECT_FALSE(fs::exists(root() + "/iteration_00000030"));
  EXPECT_EQ(store.complete_iterations(), (std::vector<std::int64_t>{10, 40}));
}

TEST_F(StoreTest, RefusesATruncatedFileNamingIt) {
  CheckpointStore store(root(), 2);
  const auto dir = write(store, 10);
  fs::resize_file(dir + "/rank_1.pt", 50);
  expect_refusal(dir_.string(), "iteration_00000010/rank_1.pt", "truncated");
}

TEST_F(StoreTest, RefusesACorruptedFileNamingIt) {
  CheckpointStore store(root(), 2);
  const auto dir = write(store, 10);
  {
    std::fstream f(dir + "/rank_0.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(7);
    f.put('#');  // same size, one byte changed
  }
  expect_refusal(dir_.string(), "iteration_00000010/rank_0.pt", "corrupted");
}

TEST_F(StoreTest, RefusesAMissingFileNamingIt) {
  CheckpointStore store(root(), 2);
  const auto dir = write(store, 10);
  fs::remove(dir + "/rank_1.pt");
  expect_refusal(dir, "iteration_00000010/rank_1.pt", "cannot open");
}

TEST_F(StoreTest, WritesTheConfigBesideTheManifestAndVerifiesIt) {
  CheckpointStore store(root(), 2);
  const auto dir = write(store, 10);
  const auto c = open_checkpoint(dir);
  EXPECT_EQ(c.config_path(), dir + "/config.yaml");
  EXPECT_EQ(read_whole_file(c.config_path()), "seed: 1\n");
  write_file_atomic(dir + "/config.yaml", "seed: 2\n");
  expect_refusal(dir, "iteration_00000010/config.yaml", "corrupted");
}

TEST_F(StoreTest, RefusesADirectoryWithoutCheckpoint) {
  fs::create_directories(dir_);
  expect_refusal(dir_.string(), dir_.string(), "no complete checkpoint");
  expect_refusal((dir_ / "nowhere").string(), "nowhere", "no such path");
}

TEST_F(StoreTest, AtomicWriteReplacesAWholeFile) {
  fs::create_directories(dir_);
  const auto path = (dir_ / "f.bin").string();
  write_file_atomic(path, "first version, long");
  write_file_atomic(path, "second");
  EXPECT_EQ(read_whole_file(path), "second");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

// A rank file changed after open_checkpoint verified it (same length, one byte) is refused
// when it is read: the re-check in read_rank_file, not only the one in open_checkpoint.
TEST_F(StoreTest, RefusesARankFileChangedAfterOpening) {
  CheckpointStore store(root(), 2);
  const auto dir = write(store, 10);
  const auto c = open_checkpoint(dir_.string());
  {
    std::fstream f(dir + "/rank_1.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3);
    f.put('#');
  }
  EXPECT_EQ(fs::file_size(dir + "/rank_1.pt"), payload(10, 1).size());
  try {
    read_rank_file(c, 1);
    FAIL() << "read a changed file";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("rank_1.pt' is corrupted"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_rank_file(c, 0), payload(10, 0));  // the other file is intact
  // ... and a file truncated after opening is refused too.
  fs::resize_file(dir + "/rank_0.pt", 5);
  EXPECT_THROW(read_rank_file(c, 0), CheckpointError);
}

// Automatic restart: a corrupted or partial newest checkpoint falls back to the previous one,
// naming what was skipped.
TEST_F(StoreTest, NewestValidCheckpointSkipsACorruptedNewest) {
  CheckpointStore store(root(), 3);
  std::vector<std::string> skipped;
  EXPECT_FALSE(open_newest_valid_checkpoint(dir_.string(), &skipped).has_value());
  write(store, 10);
  write(store, 20);
  const auto dir30 = write(store, 30);
  store.write_rank_file(40, 0, payload(40, 0));  // partial: no manifest, not even tried
  EXPECT_EQ(open_newest_valid_checkpoint(dir_.string(), &skipped)->manifest.iteration, 30);
  EXPECT_TRUE(skipped.empty());
  {
    std::fstream f(dir30 + "/rank_0.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.put('#');
  }
  fs::resize_file(root() + "/iteration_00000020/rank_1.pt", 7);
  const auto c = open_newest_valid_checkpoint(root(), &skipped);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->manifest.iteration, 10);
  EXPECT_EQ(read_rank_file(*c, 1), payload(10, 1));
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("iteration_00000030: checkpoint file"), std::string::npos)
      << skipped[0];
  EXPECT_NE(skipped[0].find("rank_0.pt' is corrupted"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("iteration_00000020"), std::string::npos) << skipped[1];
  EXPECT_NE(skipped[1].find("truncated"), std::string::npos) << skipped[1];
  fs::remove(root() + "/iteration_00000010/manifest.json");
  EXPECT_FALSE(open_newest_valid_checkpoint(root(), nullptr).has_value());
}

/// The CheckpointError message of open_checkpoint_to_resume(path), or "" if it opens.
std::string resume_refusal(const std::string& path) {
  try {
    open_checkpoint_to_resume(path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

// --resume of a damaged newest checkpoint names the older one that verifies (the one an
// automatic restart would take) and the --resume that uses it, with absolute paths.
TEST_F(StoreTest, ResumeRefusalNamesTheOlderValidCheckpoint) {
  CheckpointStore store(root(), 4);
  write(store, 10);
  write(store, 20);
  const auto dir30 = write(store, 30);
  EXPECT_EQ(open_checkpoint_to_resume(dir_.string() + "/").manifest.iteration, 30);
  fs::resize_file(dir30 + "/rank_1.pt", 7);                      // the newest: truncated
  fs::resize_file(root() + "/iteration_00000020/rank_0.pt", 3);  // the next one too
  const std::string dir10 = fs::absolute(root() + "/iteration_00000010").string();
  const auto expected_older = open_newest_valid_checkpoint(dir_.string(), nullptr);
  ASSERT_TRUE(expected_older.has_value());
  EXPECT_EQ(expected_older->manifest.iteration, 10);
  // From the run directory given relative to the working directory, and from the directory
  // of the damaged checkpoint itself.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_.parent_path());
  const std::string from_run = resume_refusal(dir_.filename().string());
  fs::current_path(cwd);
  for (const std::string& message : {from_run, resume_refusal(dir30)}) {
    EXPECT_NE(message.find("'" + fs::absolute(dir30).string() + "/rank_1.pt' is truncated"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("is iteration 10: continue from it with --resume " + dir10),
              std::string::npos)
        << message;
  }
  // The older checkpoint given directly: damaged too, so its own older one is named.
  EXPECT_NE(resume_refusal(root() + "/iteration_00000020").find("--resume " + dir10),
            std::string::npos);
  // No older checkpoint verifies: said so.
  fs::resize_file(dir10 + "/rank_0.pt", 1);
  const std::string none = resume_refusal(dir_.string());
  EXPECT_NE(none.find("no older checkpoint under '" + fs::absolute(root()).string() +
                      "' verifies either"),
            std::string::npos)
      << none;
  EXPECT_EQ(none.find("--resume /"), std::string::npos) << none;
  // No checkpoint at all: the refusal alone.
  EXPECT_EQ(resume_refusal((dir_ / "nothing").string()).find("older"), std::string::npos);
}

TEST_F(StoreTest, KeepBelowOneIsRefused) {
  EXPECT_THROW(CheckpointStore(root(), 0), std::invalid_argument);
}

}  // namespace
}  // namespace gfn::checkpoint
