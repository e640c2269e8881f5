// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Requests with enum values their enums do not have. proto3 keeps an
// unknown number (ListSessions with status 99) instead of refusing it; the
// service refuses it rather than treat it as "unset" or match nothing.
#ifndef KHET_SERVICE_WIRE_ENUM_FIELDS_H_
#define KHET_SERVICE_WIRE_ENUM_FIELDS_H_

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace khet {

// OK if every enum field of `request`, in it and in the messages it holds
// (set singular fields and repeated ones), has one of its enum's values;
// otherwise INVALID_ARGUMENT naming the first such field by its path, the
// value and the enum's values, e.g. `status is 99, not a GameStatus
// (GAME_STATUS_UNSPECIFIED, WAITING_FOR_PLAYERS, IN_PROGRESS, FINISHED)`.
absl::Status CheckEnumFields(const google::protobuf::Message& request);

}  // namespace khet

#endif  // KHET_SERVICE_WIRE_ENUM_FIELDS_H_
