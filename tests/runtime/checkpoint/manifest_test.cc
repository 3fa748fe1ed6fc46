// runtime/checkpoint/manifest.h: JSON round trip and refusals naming the file.
#include "runtime/checkpoint/manifest.h"

#include <gtest/gtest.h>

#include "runtime/checkpoint/atomic_file.h"
#include "runtime/checkpoint/checksum.h"

namespace gfn::checkpoint {
namespace {

Manifest sample() {
  auto m = make_manifest(40, "train:\n  seed: 3\n", 2, {"trainer", "buffer_manager"});
  m.files.push_back({0, "rank_0.pt", 123, 0xdeadbeef});
  m.files.push_back({1, "rank_1.pt", 7, 0x00000001});
  return m;
}

TEST(Manifest, RoundTripsThroughJson) {
  const auto m = sample();
  const auto back = parse_manifest(manifest_to_json(m), "x/manifest.json");
  EXPECT_EQ(back.format_version, kFormatVersion);
  EXPECT_EQ(back.iteration, 40);
  EXPECT_EQ(back.config_text, m.config_text);
  EXPECT_EQ(back.config_hash, hex32(crc32_of(m.config_text)));
  EXPECT_EQ(back.world_size, 2);
  EXPECT_EQ(back.roles, m.roles);
  ASSERT_EQ(back.files.size(), 2u);
  EXPECT_EQ(back.files[0].crc32, 0xdeadbeefu);
  EXPECT_EQ(back.files[1].bytes, 7u);
  EXPECT_EQ(back.files[1].name, "rank_1.pt");
}

void expect_refused(const std::string& text, const std::string& fragment) {
  try {
    parse_manifest(text, "run/checkpoints/iteration_00000040/manifest.json");
    FAIL() << "accepted: " << text;
  } catch (const CheckpointError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("iteration_00000040/manifest.json"), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(Manifest, RefusesBrokenJsonNamingTheFile) {
  const auto json = manifest_to_json(sample());
  expect_refused(json.substr(0, json.size() / 2), "not valid");
}

TEST(Manifest, RefusesAnotherFormatVersion) {
  auto m = sample();
  m.format_version = kFormatVersion + 1;
  expect_refused(manifest_to_json(m), "format version");
}

TEST(Manifest, RefusesAConfigThatDoesNotMatchItsHash) {
  auto m = sample();
  m.config_text += "# edited\n";  // the hash is of the original text
  expect_refused(manifest_to_json(m), "config_hash");
}

TEST(Manifest, RefusesAFileNameWithADirectory) {
  auto m = sample();
  m.files[0].name = "../rank_0.pt";
  expect_refused(manifest_to_json(m), "bad file name");
}

TEST(Checksum, MatchesTheStandardCrc32CheckValue) {
  EXPECT_EQ(crc32_of("123456789"), 0xcbf43926u);  // the CRC-32 check value
  EXPECT_EQ(hex32(0xcbf43926u), "cbf43926");
}

}  // namespace
}  // namespace gfn::checkpoint
