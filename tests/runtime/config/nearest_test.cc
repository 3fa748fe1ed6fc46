// runtime/config/nearest.h: Levenshtein's distance on known pairs, and the nearest names of a
// misspelled key (a typo, the key in another section, none close).
#include "runtime/config/nearest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gfn::config {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // 2 substitutions, 1 insertion
  EXPECT_EQ(edit_distance("sitting", "kitten"), 3u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);  // 1 deletion, 1 insertion
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
  EXPECT_EQ(edit_distance("train.lr", "train.rl"), 2u);  // a swap is two edits
}

TEST(NearestNames, TyposAndOtherSectionsFirstAtMostN) {
  const std::vector<std::string> keys = {"train.lr",         "train.lr_logz", "train.batch_size",
                                         "model.hidden_dim", "env.ndim",      "train.seed",
                                         "validation.seed"};
  EXPECT_THAT(nearest_names("train.bach_size", keys, 3), ElementsAre("train.batch_size"));
  EXPECT_THAT(nearest_names("train.hidden_dim", keys, 3), ElementsAre("model.hidden_dim"));
  EXPECT_THAT(nearest_names("train.lr_log", keys, 3), ElementsAre("train.lr_logz"));
  // Ties keep the candidates' order; `at_most` caps the list.
  EXPECT_THAT(nearest_names("env.seed", keys, 3), ElementsAre("train.seed", "validation.seed"));
  EXPECT_THAT(nearest_names("env.seed", keys, 1), ElementsAre("train.seed"));
  // Nothing is close: nothing is suggested.
  EXPECT_THAT(nearest_names("output.colour_scheme", keys, 3), IsEmpty());
}

}  // namespace
}  // namespace gfn::config
