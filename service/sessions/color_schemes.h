// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The colour schemes a board may show (rules section 8). The rules call the
// first player Silver and the second Red whatever the scheme shows.
#ifndef KHET_SERVICE_SESSIONS_COLOR_SCHEMES_H_
#define KHET_SERVICE_SESSIONS_COLOR_SCHEMES_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "khet/v1/game.pb.h"

namespace khet {

inline constexpr std::string_view kDefaultColorScheme = "classic";

// classic (silver and ruby, the default), deflexion (silver and gold), nile
// (orange and blue), royal (green and purple), in that order.
const std::vector<v1::ColorScheme>& AllColorSchemes();

// The scheme with this id, or INVALID_ARGUMENT naming the id and the ids
// that exist.
absl::StatusOr<v1::ColorScheme> FindColorScheme(std::string_view id);

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_COLOR_SCHEMES_H_
