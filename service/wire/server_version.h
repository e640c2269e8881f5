// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// What GetVersion and GET /v1/version answer: the release this khetd was
// built as (khet_version.h, from project(khet VERSION ...)) and the API
// package it serves.
#ifndef KHET_SERVICE_WIRE_SERVER_VERSION_H_
#define KHET_SERVICE_WIRE_SERVER_VERSION_H_

#include "khet/v1/khet_service.pb.h"

namespace khet {

// {version: "MAJOR.MINOR.PATCH", api: "khet.v1"}.
v1::GetVersionResponse ServerVersion();

}  // namespace khet

#endif  // KHET_SERVICE_WIRE_SERVER_VERSION_H_
