// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// How far a replica's watchers are behind the other replicas' writes.
#ifndef KHET_SERVICE_SESSIONS_NOTICE_BACKLOG_H_
#define KHET_SERVICE_SESSIONS_NOTICE_BACKLOG_H_

#include "absl/time/time.h"

namespace khet {

// A shared store's change notices heard and not yet handled (one per
// session), and how long the oldest of them has waited.
struct NoticeBacklog {
  int waiting = 0;
  absl::Duration oldest = absl::ZeroDuration();
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_NOTICE_BACKLOG_H_
