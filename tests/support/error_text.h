#pragma once
// Test helper: the text of the exception a callable throws, for assertions on error
// messages ("" when it throws nothing). Thread-safe; header-only.
#include <exception>
#include <functional>
#include <string>

namespace gfn::testing {

inline std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace gfn::testing
