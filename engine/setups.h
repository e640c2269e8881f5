// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// The named starting setups of section 7 of the rules, with stable ids.
#ifndef KHET_ENGINE_SETUPS_H_
#define KHET_ENGINE_SETUPS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "engine/position.h"

namespace khet {

struct SetupInfo {
  std::string_view id;    // stable, e.g. "classic-2b"
  std::string_view name;  // for people, e.g. "Classic 2b"
  Edition edition;
  bool beam_splitter;  // uses the Eye of Horus expansion
  std::string_view description;
};

// Every named setup: Classic, Imhotep and Dynasty for Khet 2.0 and 1.0, their
// Eye of Horus "b" versions, Osiris and Isis.
absl::Span<const SetupInfo> AllSetups();

// The setup with this id, or NOT_FOUND naming the id.
absl::StatusOr<SetupInfo> FindSetup(std::string_view id);

// The starting position of the setup with this id, Silver to move.
absl::StatusOr<Position> SetupPosition(std::string_view id);

}  // namespace khet

#endif  // KHET_ENGINE_SETUPS_H_
