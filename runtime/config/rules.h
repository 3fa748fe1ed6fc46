#pragma once
// Validation rules of the options a schema registers (fields.h): each rule has the text
// the reference prints (docs/configuration.md "allowed" column, e.g. ">= 1") and a check
// returning "" when a value is acceptable, else what is wrong with it ("must be >= 1").
// The schema reports a refused value as "<where>: <key> = <value> is invalid: <message>".
// Header-only (fmt), thread-safe (rules are immutable values).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "runtime/config/int_range.h"

namespace gfn::config {

/// A rule: `text` for the reference, `check(value)` -> "" or the problem.
template <class F>
struct Rule {
  std::string text;
  F check;
};

template <class F>
Rule<F> make_rule(std::string text, F check) {
  return Rule<F>{std::move(text), std::move(check)};
}

/// No constraint beyond the type.
struct NoRule {
  std::string text;
  template <class T>
  std::string check(const T&) const {
    return "";
  }
};

/// No constraint beyond the type, and a value that does not parse (an enumerated option
/// given a name outside its table) is reported as "<key> = <value> is invalid: must be
/// one of: ..." like an impossible value, instead of "<key> must be ..., got '<value>'".
struct AsInvalid {
  std::string text;
  template <class T>
  std::string check(const T&) const {
    return "";
  }
};

template <class N>
auto at_least(N bound) {
  return make_rule(fmt::format(">= {}", bound), [bound](auto v) -> std::string {
    if (v >= bound) return "";
    return fmt::format("must be >= {}", bound);
  });
}

inline auto positive() {
  return make_rule("> 0", [](auto v) -> std::string {
    if (v > 0) return "";  // false for NaN
    return "must be > 0";
  });
}

/// > 0 and finite (refuses NaN and infinity).
inline auto positive_finite() {
  return make_rule("> 0, finite", [](double v) -> std::string {
    if (v > 0.0 && std::isfinite(v)) return "";
    return "must be > 0 and finite";
  });
}

inline auto non_negative() {
  return make_rule(">= 0", [](double v) -> std::string {
    if (v >= 0.0) return "";
    return "must be >= 0";
  });
}

inline auto in_unit_interval() {
  return make_rule("in [0, 1]", [](double v) -> std::string {
    if (v >= 0.0 && v <= 1.0) return "";
    return "must be in [0, 1]";
  });
}

/// (0, 1].
inline auto in_half_open_unit_interval() {
  return make_rule("in (0, 1]", [](double v) -> std::string {
    if (v > 0.0 && v <= 1.0) return "";
    return "must be in (0, 1]";
  });
}

inline auto in_range(double lo, double hi) {
  return make_rule(fmt::format("in [{}, {}]", lo, hi), [lo, hi](double v) -> std::string {
    if (v >= lo && v <= hi) return "";
    return fmt::format("must be in [{}, {}]", lo, hi);
  });
}

/// [lo, hi).
inline auto in_range_open(double lo, double hi) {
  return make_rule(fmt::format("in [{}, {})", lo, hi), [lo, hi](double v) -> std::string {
    if (v >= lo && v < hi) return "";
    return fmt::format("must be in [{}, {})", lo, hi);
  });
}

/// A string among `allowed` (for names checked by the schema itself; enumerations use
/// their tables, enum_names.h).
inline auto one_of(std::vector<std::string> allowed) {
  std::string text = fmt::format("one of: {}", fmt::join(allowed, ", "));
  return make_rule(text, [allowed, text](const std::string& v) -> std::string {
    for (const auto& a : allowed) {
      if (v == a) return "";
    }
    return "must be " + text;
  });
}

/// -1 (unset) or an integer >= bound.
inline auto unset_or_at_least(int bound) {
  return make_rule(fmt::format("-1 (unset) or >= {}", bound), [bound](int v) -> std::string {
    if (v == -1 || v >= bound) return "";
    return fmt::format("must be -1 (unset) or >= {}", bound);
  });
}

/// 0 (unset) or a TCP port.
inline auto unset_or_port() {
  return make_rule("0 (unset) or 1..65535", [](int v) -> std::string {
    if (v >= 0 && v <= 65535) return "";
    return "must be 0 (unset) or a TCP port 1..65535";
  });
}

/// [min, max] with `lowest` <= min <= max.
inline auto ordered_range(std::int64_t lowest) {
  return make_rule(fmt::format("{} <= min <= max", lowest),
                   [lowest](const IntRange& r) -> std::string {
                     if (r.min >= lowest && r.max >= r.min) return "";
                     return fmt::format("must be [min, max] with {} <= min <= max", lowest);
                   });
}

inline auto not_nan() {
  return make_rule("not NaN", [](double v) -> std::string {
    return std::isnan(v) ? "must be a number (or .inf)" : "";
  });
}

inline auto non_empty() {
  return make_rule("not empty", [](const std::string& v) -> std::string {
    return v.empty() ? "must not be empty" : "";
  });
}

}  // namespace gfn::config
