// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The text of `khetctl legend`, apart so that its test can read it.
#ifndef KHET_CLIENTS_KHETCTL_LEGEND_H_
#define KHET_CLIENTS_KHETCTL_LEGEND_H_

#include "absl/strings/string_view.h"

namespace khet::ctl {

// How to read a board and write a move. Its example moves are good first
// moves for Silver: legal at the start of Classic 2 (of Classic 1 for an
// Obelisk's), and their shot hits nothing.
absl::string_view LegendText();

}  // namespace khet::ctl

#endif  // KHET_CLIENTS_KHETCTL_LEGEND_H_
