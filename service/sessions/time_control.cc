// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

#include "service/sessions/time_control.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace khet {
namespace {

constexpr int64_t kSecondMs = 1000;
constexpr int64_t kHourMs = 3600 * kSecondMs;
constexpr int64_t kDayMs = 24 * kHourMs;

absl::Status CheckRange(const char* field, int64_t value, int64_t low,
                        int64_t high) {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("rules.time_control.", field,
                                                 " must be ", low, " to ", high,
                                                 " ms, not ", value));
}

// Milliseconds as seconds: "300", "0.5", "1.25".
std::string Seconds(int64_t ms) {
  if (ms % kSecondMs == 0) return absl::StrCat(ms / kSecondMs);
  std::string out = absl::StrFormat("%.3f", ms / 1000.0);
  while (out.back() == '0') out.pop_back();
  return out;
}

}  // namespace

bool HasClocks(const v1::TimeControl& tc) {
  return tc.kind() == v1::TimeControl::FISCHER ||
         tc.kind() == v1::TimeControl::PER_MOVE;
}

absl::Status CheckTimeControl(const v1::TimeControl& tc) {
  switch (tc.kind()) {
    case v1::TimeControl::NONE:
      if (tc.base_ms() != 0 || tc.increment_ms() != 0 ||
          tc.per_move_ms() != 0) {
        return absl::InvalidArgumentError(
            "rules.time_control gives times but no kind: set kind to FISCHER "
            "or PER_MOVE");
      }
      return absl::OkStatus();
    case v1::TimeControl::FISCHER:
      if (tc.per_move_ms() != 0) {
        return absl::InvalidArgumentError(
            "rules.time_control.per_move_ms is for PER_MOVE, not FISCHER");
      }
      if (absl::Status s =
              CheckRange("base_ms", tc.base_ms(), kSecondMs, kDayMs);
          !s.ok()) {
        return s;
      }
      return CheckRange("increment_ms", tc.increment_ms(), 0, kHourMs);
    case v1::TimeControl::PER_MOVE:
      if (tc.base_ms() != 0 || tc.increment_ms() != 0) {
        return absl::InvalidArgumentError(
            "rules.time_control.base_ms and increment_ms are for FISCHER, not "
            "PER_MOVE");
      }
      return CheckRange("per_move_ms", tc.per_move_ms(), kSecondMs, 7 * kDayMs);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("rules.time_control.kind ", static_cast<int>(tc.kind()),
                       " is not NONE, FISCHER or PER_MOVE"));
  }
}

int64_t InitialClockMs(const v1::TimeControl& tc) {
  switch (tc.kind()) {
    case v1::TimeControl::FISCHER:
      return tc.base_ms();
    case v1::TimeControl::PER_MOVE:
      return tc.per_move_ms();
    default:
      return 0;
  }
}

std::string TimeControlText(const v1::TimeControl& tc) {
  switch (tc.kind()) {
    case v1::TimeControl::FISCHER:
      return absl::StrCat("fischer ", Seconds(tc.base_ms()), "+",
                          Seconds(tc.increment_ms()));
    case v1::TimeControl::PER_MOVE:
      return absl::StrCat("per move ", Seconds(tc.per_move_ms()));
    default:
      return "";
  }
}

}  // namespace khet
