#pragma once
// The names nearest to a misspelled one, for error messages that name the remedy ("did you
// mean train.learning_rate?"). Distance: Levenshtein's edit distance (insertions, deletions
// and substitutions of one character, each costing 1); a dotted name whose last part equals
// the misspelled one's last part (the key in another section) counts as distance 1.
// Thread-safe (pure). Cost: O(|name| * total length of the candidates).

#include <cstddef>
#include <string>
#include <vector>

namespace gfn::config {

/// Levenshtein's edit distance between `a` and `b`.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// Up to `at_most` of `candidates` nearest to `name`, nearest first (ties in the candidates'
/// order), keeping only those within max(2, |name| / 3) edits (close enough to be a typo)
/// and at most one edit further than the nearest. Empty when none is that close.
std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& candidates,
                                       std::size_t at_most);

}  // namespace gfn::config
