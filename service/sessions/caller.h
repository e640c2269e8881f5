// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// Who calls a request handler, and what a long call knows of its caller.
#ifndef KHET_SERVICE_SESSIONS_CALLER_H_
#define KHET_SERVICE_SESSIONS_CALLER_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace khet {

// Who calls: the token the call carries (from "authorization: Bearer
// <token>"; empty when there is none) and, for the per-caller budgets, the
// client's address as the door established it (its budget key, e.g.
// "192.0.2.7"; empty: unknown, as for in-process callers, whom no budget
// counts) with the in-world object's key, if the call carried one.
struct Caller {
  std::string token;
  std::string address = {};
  std::string object_key = {};
};

// What a long call (SuggestMove) needs to know about its caller.
struct CallControl {
  // When the caller stops waiting; the call ends a little before it.
  absl::Time deadline = absl::InfiniteFuture();
  // Called now and then on the calling thread while the call works: OK to
  // go on, or the error to end the call with (CANCELLED when the caller
  // went away). Empty: the caller never cancels.
  std::function<absl::Status()> check;
  // The client's address (as Caller::address), for the budget of searches
  // at once per address; empty: unknown, not counted.
  std::string address;
};

}  // namespace khet

#endif  // KHET_SERVICE_SESSIONS_CALLER_H_
